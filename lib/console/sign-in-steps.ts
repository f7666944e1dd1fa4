import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Context, Env, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { clientAddress } from "../core/client-address";
import type { OperatorActor } from "../core/principal";
import { safeEqual } from "../core/secrets";
import type { AuditEntryInput } from "../admin/audit/record";
import { getOperator, type OperatorView } from "../admin/operators/accounts";
import {
  confirmTotp,
  passkeyAuthenticationOptions,
  passkeyRegistrationOptions,
  registerPasskey,
  relyingPartyOf,
  secondFactorStatus,
  startTotp,
  unconfirmedTotp,
  useRecoveryCode,
  verifyPasskey,
  verifyTotp,
} from "../admin/operators/second-factor";
import { endAttempt, failAttempt, findAttempt, startAttempt, takeAttempt, updateAttemptData, type SignInAttempt } from "../admin/operators/sign-in-attempts";
import { readSignInPolicy } from "../admin/operators/sign-in-policy";
import { admit, createSsoClient, operatorForIdentity, ssoSettingsOf, type SsoClient } from "../admin/operators/sso";
import type { CoreDeps } from "../core/context";
import type { Refusal } from "../core/refusal-audit";
import { enrolPage, recoveryCodesPage, secondFactorPage, signInPage, ssoDonePage } from "./pages";
import type { SessionKeys } from "./session";

/**
 * The sign-in steps past the password form: single sign-on (`/console/sso/*`), the second factor of a password
 * account (`/console/sign-in/second-factor`) and the enrolment of one when the policy asks for it
 * (`/console/sign-in/enrol`). Between steps the browser holds a signed cookie naming a server-side attempt
 * (`sign_in_attempts`), never the state itself. Wrong second factors count in the per-address throttle (the
 * password's own back-off, per account and address, was passed and reset by the matching password), are
 * audited (`signInFailed`, `method`) and end the attempt after five, so guessing needs
 * the password again. Every successful sign-in opens a session with a fresh `authenticated_at` and is audited
 * as `signIn` with its `method`.
 */
export type SignInMethod = "password" | "password+totp" | "password+passkey" | "password+recovery_code" | "sso" | "token";

export type SignInStepHelpers = {
  keys: SessionKeys;
  secure(c: Context): boolean;
  sameOrigin(c: Context): boolean;
  audit(c: Context, operationId: string, status: number, actor: AuditEntryInput["actor"], target: Record<string, string>): Promise<void>;
  /** Audits a refused step (`deps.refusals`: identical refusals within a minute are one entry with a count). */
  refused(c: Context, refusal: Pick<Refusal, "operationId" | "status" | "reason"> & { target?: Record<string, string> }): Promise<void>;
  /** Opens the console session of an operator who passed every step, and answers (a redirect or the given page). */
  openSession(c: Context, actor: OperatorActor, method: SignInMethod, page?: () => Response | Promise<Response>): Promise<Response>;
  tooMany(c: Context, seconds: number): Response | Promise<Response>;
};

const PENDING_COOKIE = "console_sign_in";
const SSO_COOKIE = "console_sso";
const CONSOLE_PATH = "/console";
const anonymous = { type: "anonymous" as const, operatorId: null, tokenId: null };

type StepDeps = Pick<CoreDeps, "db" | "clock" | "authThrottle" | "logger" | "config" | "secrets" | "publicBaseUrl">;

export function createSignInSteps(deps: StepDeps, helpers: SignInStepHelpers) {
  const settings = ssoSettingsOf(deps.config, deps.publicBaseUrl);
  const sso: SsoClient | null = settings ? createSsoClient(settings) : null;
  const rp = relyingPartyOf(deps.publicBaseUrl);
  const signed = (id: string) => `${id}.${helpers.keys.sign(`attempt:${id}`)}`;
  const csrfOf = (attempt: SignInAttempt) => helpers.keys.sign(`attempt-csrf:${attempt.id}`);
  const readSigned = (value: string | undefined): string | null => {
    const match = value ? /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
    return match?.[1] && match[2] && safeEqual(match[2], helpers.keys.sign(`attempt:${match[1]}`)) ? match[1] : null;
  };
  const pending = async (c: Context, kind: "second_factor" | "enrol"): Promise<SignInAttempt | null> => {
    const id = readSigned(getCookie(c, PENDING_COOKIE));
    return id ? findAttempt(deps.db, deps.clock, id, kind) : null;
  };
  const setPending = (c: Context, attempt: SignInAttempt) =>
    setCookie(c, PENDING_COOKIE, signed(attempt.id), {
      path: CONSOLE_PATH,
      httpOnly: true,
      sameSite: "Strict",
      secure: helpers.secure(c),
      expires: attempt.expiresAt,
    });
  const clearPending = (c: Context) => deleteCookie(c, PENDING_COOKIE, { path: CONSOLE_PATH, secure: helpers.secure(c) });
  const actorOf = (operatorId: string, role: OperatorActor["role"]): OperatorActor => ({ type: "operator", role, operatorId, tokenId: null, sessionId: null });
  const formOf = async (c: Context) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    return (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
  };
  /** A step's write must come from our page: our origin (when sent) and the attempt's CSRF value. */
  const fromOurPage = (c: Context, attempt: SignInAttempt, sent: string) => helpers.sameOrigin(c) && safeEqual(sent, csrfOf(attempt));

  /** A wrong second factor: throttled per address like a wrong password, audited, and the attempt's budget spent. */
  const wrongFactor = async (c: Context, attempt: SignInAttempt, method: SignInMethod): Promise<Response | null> => {
    const address = clientAddress(c) ?? "unknown";
    const wait = await deps.authThrottle.failed(address);
    const left = await failAttempt(deps.db, attempt.id);
    // One entry each: a wrong factor follows a matching password, so their number is bounded by the password's back-off.
    await helpers.audit(c, "signInFailed", 401, anonymous, { method, step: "second_factor", operator: attempt.operatorId ?? "" });
    if (wait > 0) return helpers.tooMany(c, wait);
    if (left === 0) {
      clearPending(c);
      return c.html(signInPage({ error: "Too many wrong codes. Sign in with your password again.", field: "password", sso: settings?.providerName }), 401);
    }
    return null;
  };

  /**
   * A second factor sent while the address is throttled: not checked, and recorded as a refusal like a throttled
   * password (counted per minute, so a flood of them is a few entries).
   */
  const throttled = (c: Context, attempt: SignInAttempt, method: SignInMethod) =>
    helpers.refused(c, {
      operationId: "signInFailed",
      status: 429,
      reason: "auth_throttled",
      target: { method, step: "second_factor", operator: attempt.operatorId ?? "" },
    });

  return {
    ssoName: settings?.providerName ?? null,

    /**
     * After a matching password: the policy may close password sign-in (but for the break-glass owner), ask
     * for the operator's second factor, or ask for one to be set up. Null when the session may open now.
     */
    async afterPassword(c: Context, operator: OperatorView): Promise<Response | { method: SignInMethod; breakGlass: boolean } | { refused: string }> {
      const policy = await readSignInPolicy(deps.db);
      const breakGlass = policy.password_sign_in === "break_glass_only" && policy.break_glass_operator_id === operator.id;
      if (policy.password_sign_in === "break_glass_only" && !breakGlass) {
        return { refused: `Password sign-in is turned off: sign in with ${settings?.providerName ?? "single sign-on"}.` };
      }
      const status = await secondFactorStatus(deps.db, operator.id);
      if (status.totp || status.passkeys > 0) {
        const attempt = await startAttempt(deps.db, deps.clock, { kind: "second_factor", operatorId: operator.id, data: { breakGlass: String(breakGlass) } });
        setPending(c, attempt);
        return c.redirect(`${CONSOLE_PATH}/sign-in/second-factor`, 303);
      }
      if (policy.require_second_factor) {
        const attempt = await startAttempt(deps.db, deps.clock, { kind: "enrol", operatorId: operator.id, data: { breakGlass: String(breakGlass) } });
        setPending(c, attempt);
        return c.redirect(`${CONSOLE_PATH}/sign-in/enrol`, 303);
      }
      return { method: "password", breakGlass };
    },

    register<E extends Env>(router: Hono<E>) {
      // --- Single sign-on ---
      router.get("/sso/start", async (c) => {
        if (!sso) return c.html(signInPage({ error: "Single sign-on is not set up on this server." }), 404);
        const { url, checks } = await sso.start();
        const attempt = await startAttempt(deps.db, deps.clock, { kind: "sso", operatorId: null, data: checks });
        // Lax, not Strict: the provider's answer is a top-level navigation from its own site, which must carry it.
        setCookie(c, SSO_COOKIE, signed(attempt.id), {
          path: `${CONSOLE_PATH}/sso`,
          httpOnly: true,
          sameSite: "Lax",
          secure: helpers.secure(c),
          expires: attempt.expiresAt,
        });
        return c.redirect(url, 303);
      });

      router.get("/sso/callback", async (c) => {
        if (!sso) return c.html(signInPage({ error: "Single sign-on is not set up on this server." }), 404);
        const id = readSigned(getCookie(c, SSO_COOKIE));
        deleteCookie(c, SSO_COOKIE, { path: `${CONSOLE_PATH}/sso`, secure: helpers.secure(c) });
        const attempt = id ? await takeAttempt(deps.db, deps.clock, id, "sso") : null;
        const refuse = async (reason: string, target: Record<string, string>, detail?: string) => {
          // No attempt behind the callback costs an attacker nothing to repeat: such refusals are counted per
          // minute (`refused`). The others each spent an attempt started at /sso/start: one entry each.
          if (target.reason === "no_attempt") {
            await helpers.refused(c, { operationId: "signInFailed", status: 401, reason: "no_attempt", target: { method: "sso", ...target } });
          } else {
            await helpers.audit(c, "signInFailed", 401, anonymous, { method: "sso", ...target });
          }
          deps.logger.info("console single sign-on refused", { reason: detail ?? reason });
          return c.html(signInPage({ error: reason, sso: sso.settings.providerName }), 401);
        };
        if (!attempt) return refuse("This sign-in expired or was started in another browser. Try again.", { reason: "no_attempt" });
        const query = new URL(c.req.url).search;
        const claims = await sso
          .finish(query, { state: attempt.data.state ?? "", nonce: attempt.data.nonce ?? "", verifier: attempt.data.verifier ?? "" })
          .catch((error: unknown) => error as Error);
        if (claims instanceof Error) {
          return refuse(
            `${sso.settings.providerName} did not confirm this sign-in. Try again.`,
            { reason: "provider_answer_refused" },
            `${claims.name}: ${claims.message}`,
          );
        }
        const admission = admit(claims, sso.settings);
        const email = admission.identity?.email;
        if (!admission.admitted) return refuse(admission.reason, { reason: "not_admitted", ...(email ? { email } : {}) });
        const account = await operatorForIdentity(deps.db, admission.identity, admission.role);
        if ("refused" in account) return refuse(account.refused, { reason: "account_refused", email: admission.identity.email });
        const actor = actorOf(account.operator.id, account.operator.role);
        if (account.created) {
          await helpers.audit(c, "createOperatorBySso", 201, actor, {
            operator: account.operator.id,
            email: account.operator.email,
            role: account.operator.role,
            groups: admission.identity.groups.join(",").slice(0, 500),
          });
        }
        // The session cookie is SameSite=Strict: a page of ours moves on to the console, so the next request
        // is same-site and carries it (a redirect here would still count as the provider's navigation).
        return helpers.openSession(c, actor, "sso", () => c.html(ssoDonePage()));
      });

      // --- The second factor of a password sign-in ---
      router.get("/sign-in/second-factor", async (c) => {
        const attempt = await pending(c, "second_factor");
        if (!attempt?.operatorId) return c.redirect(`${CONSOLE_PATH}/sign-in?expired`, 303);
        const status = await secondFactorStatus(deps.db, attempt.operatorId);
        return c.html(secondFactorPage({ csrf: csrfOf(attempt), totp: status.totp, passkey: status.passkeys > 0 }));
      });

      router.post("/sign-in/second-factor", async (c) => {
        const attempt = await pending(c, "second_factor");
        if (!attempt?.operatorId) return c.redirect(`${CONSOLE_PATH}/sign-in?expired`, 303);
        const field = await formOf(c);
        const code = field("code").trim();
        const recovery = field("recovery_code").trim();
        const method: SignInMethod = recovery ? "password+recovery_code" : "password+totp";
        const blocked = deps.authThrottle.retryAfter(clientAddress(c) ?? "unknown");
        if (blocked > 0) {
          await throttled(c, attempt, method);
          return helpers.tooMany(c, blocked);
        }
        const status = await secondFactorStatus(deps.db, attempt.operatorId);
        const page = (error: string) => c.html(secondFactorPage({ csrf: csrfOf(attempt), totp: status.totp, passkey: status.passkeys > 0, error }), 401);
        if (!fromOurPage(c, attempt, field("csrf"))) return c.html(signInPage({ error: "Sign-in must come from this console's own page." }), 403);
        const ok = recovery
          ? await useRecoveryCode(deps.db, deps.clock, attempt.operatorId, recovery)
          : await verifyTotp(deps.db, deps.clock, deps.secrets, attempt.operatorId, code);
        if (!ok) {
          const answered = await wrongFactor(c, attempt, method);
          return answered ?? page(recovery ? "This recovery code is wrong or used already." : "This code is wrong, expired or used already.");
        }
        return finishPending(c, attempt, method);
      });

      router.post("/sign-in/passkey-options", async (c) => {
        const attempt = await pending(c, "second_factor");
        if (!attempt?.operatorId || !fromOurPage(c, attempt, c.req.header("x-csrf-token") ?? "")) return c.json({ error: "No sign-in under way." }, 401);
        const options = await passkeyAuthenticationOptions(deps.db, rp, attempt.operatorId);
        await updateAttemptData(deps.db, attempt.id, { challenge: options.challenge });
        return c.json(options);
      });

      router.post("/sign-in/passkey", async (c) => {
        const attempt = await pending(c, "second_factor");
        if (!attempt?.operatorId || !fromOurPage(c, attempt, c.req.header("x-csrf-token") ?? "")) return c.json({ error: "No sign-in under way." }, 401);
        const blocked = deps.authThrottle.retryAfter(clientAddress(c) ?? "unknown");
        if (blocked > 0) {
          await throttled(c, attempt, "password+passkey");
          return c.json({ error: `Too many failed sign-ins from this address. Try again in ${blocked} seconds.` }, 429);
        }
        const response = (await c.req.json().catch(() => null)) as AuthenticationResponseJSON | null;
        const challenge = attempt.data.challenge;
        const ok =
          response !== null &&
          typeof challenge === "string" &&
          (await updateAttemptData(deps.db, attempt.id, { challenge: "" }).then(() =>
            verifyPasskey(deps.db, deps.clock, rp, { operatorId: attempt.operatorId as string, challenge, response }),
          ));
        if (!ok) {
          const answered = await wrongFactor(c, attempt, "password+passkey");
          return answered ? c.json({ error: "Too many failed sign-ins." }, answered.status as 401) : c.json({ error: "The passkey was not accepted." }, 401);
        }
        return finishPending(c, attempt, "password+passkey", null, () => c.json({ location: `${CONSOLE_PATH}/` }));
      });

      // --- Enrolment of a second factor the policy asks for ---
      router.get("/sign-in/enrol", async (c) => {
        const attempt = await pending(c, "enrol");
        if (!attempt?.operatorId) return c.redirect(`${CONSOLE_PATH}/sign-in?expired`, 303);
        // After a wrong code the secret shown before stays (the operator has added it to the app already).
        const shown = attempt.data.totpFactor ? await unconfirmedTotp(deps.db, deps.secrets, attempt.operatorId, attempt.data.totpFactor) : null;
        const totp = shown ?? (await startTotp(deps.db, deps.secrets, attempt.operatorId, "Authenticator app"));
        if (!shown) await updateAttemptData(deps.db, attempt.id, { totpFactor: totp.id });
        const error =
          c.req.query("wrong") !== undefined ? "This code does not match the secret now; check the phone's clock and type the current code." : undefined;
        return c.html(enrolPage({ csrf: csrfOf(attempt), secret: totp.secret, uri: totp.otpauth_uri, error }));
      });

      router.post("/sign-in/enrol/totp", async (c) => {
        const attempt = await pending(c, "enrol");
        if (!attempt?.operatorId || !attempt.data.totpFactor) return c.redirect(`${CONSOLE_PATH}/sign-in?expired`, 303);
        const field = await formOf(c);
        if (!fromOurPage(c, attempt, field("csrf"))) return c.html(signInPage({ error: "Sign-in must come from this console's own page." }), 403);
        const confirmed = await confirmTotp(deps.db, deps.clock, deps.secrets, attempt.operatorId, attempt.data.totpFactor, field("code")).catch(() => null);
        if (!confirmed) {
          const answered = await wrongFactor(c, attempt, "password+totp");
          if (answered) return answered;
          return c.redirect(`${CONSOLE_PATH}/sign-in/enrol?wrong`, 303);
        }
        await helpers.audit(
          c,
          "enrolSecondFactor",
          201,
          { type: "operator", operatorId: attempt.operatorId, tokenId: null },
          { factor: confirmed.factor.id, kind: "totp" },
        );
        return finishPending(c, attempt, "password+totp", confirmed.recovery_codes);
      });

      router.post("/sign-in/enrol/passkey-options", async (c) => {
        const attempt = await pending(c, "enrol");
        if (!attempt?.operatorId || !fromOurPage(c, attempt, c.req.header("x-csrf-token") ?? "")) return c.json({ error: "No sign-in under way." }, 401);
        const options = await passkeyRegistrationOptions(deps.db, rp, attempt.operatorId);
        await updateAttemptData(deps.db, attempt.id, { challenge: options.challenge });
        return c.json(options);
      });

      router.post("/sign-in/enrol/passkey", async (c) => {
        const attempt = await pending(c, "enrol");
        if (!attempt?.operatorId || !attempt.data.challenge || !fromOurPage(c, attempt, c.req.header("x-csrf-token") ?? "")) {
          return c.json({ error: "No sign-in under way." }, 401);
        }
        const response = (await c.req.json().catch(() => null)) as RegistrationResponseJSON | null;
        const registered = response
          ? await registerPasskey(deps.db, deps.clock, rp, {
              operatorId: attempt.operatorId,
              challenge: attempt.data.challenge,
              label: "Passkey",
              response,
            }).catch(() => null)
          : null;
        if (!registered) return c.json({ error: "The passkey could not be registered." }, 422);
        await helpers.audit(
          c,
          "enrolSecondFactor",
          201,
          { type: "operator", operatorId: attempt.operatorId, tokenId: null },
          { factor: registered.factor.id, kind: "passkey" },
        );
        return finishPending(c, attempt, "password+passkey", null, () =>
          c.json({ location: `${CONSOLE_PATH}/`, recovery_codes: registered.recovery_codes ?? [] }),
        );
      });
    },
  };

  /** The last step passed: the attempt ends and the session opens (with the new recovery codes shown once, if any). */
  async function finishPending(
    c: Context,
    attempt: SignInAttempt,
    method: SignInMethod,
    recoveryCodes: string[] | null = null,
    answer?: () => Response | Promise<Response>,
  ): Promise<Response> {
    await endAttempt(deps.db, attempt.id);
    clearPending(c);
    const operator = attempt.operatorId ? await getOperator(deps.db, attempt.operatorId) : null;
    if (!operator || operator.disabled_at) return c.html(signInPage({ error: "E-mail or password wrong, or the account is disabled." }), 401);
    const page = answer ?? (recoveryCodes ? () => c.html(recoveryCodesPage({ codes: recoveryCodes })) : undefined);
    return helpers.openSession(c, actorOf(operator.id, operator.role), method, page);
  }
}
