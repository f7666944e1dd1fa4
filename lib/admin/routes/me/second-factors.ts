import { z } from "@hono/zod-openapi";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { ConflictError, NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import {
  confirmTotp,
  listSecondFactors,
  passkeyRegistrationOptions,
  registerPasskey,
  relyingPartyOf,
  removeSecondFactor,
  replaceRecoveryCodes,
  secondFactorStatus,
  startTotp,
} from "../../operators/second-factor";
import { startAttempt, takeAttempt } from "../../operators/sign-in-attempts";
import type { AdminRouter } from "../shared";
import { ownOperatorId, tags } from "../../me/schema";

const factorId = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
const own = "Open to every role: it changes only the caller's own account. A credential without an operator account answers 409 `no_operator_account`.";

const SecondFactor = z
  .object({
    id: z.uuid().openapi({ description: "Factor id.", example: factorId }),
    kind: z.enum(["totp", "passkey"]).openapi({ description: "`totp`: an authenticator app; `passkey`: a WebAuthn credential.", example: "totp" }),
    label: z.string().openapi({ description: "The operator's name for it.", example: "Phone" }),
    created_at: z.string().openapi({ description: "When it was set up.", example: "2026-01-15T10:00:00.000Z" }),
    last_used_at: z.string().nullable().openapi({ description: "Its last accepted use.", example: null }),
  })
  .openapi("SecondFactor");

const RecoveryCodes = z
  .array(z.string())
  .nullable()
  .openapi({
    description:
      "Ten one-time recovery codes (`XXXXX-XXXXX`), shown this once and stored only hashed; made with the account's first factor (null for a later one, whose account keeps its codes).",
    example: ["7KQ2M-XH4PD", "…"],
  });

const EnrolledFactor = z.object({ factor: SecondFactor, recovery_codes: RecoveryCodes }).openapi("EnrolledSecondFactor");

const Label = z.string().trim().min(1).max(60).openapi({ description: "A name for the factor (1–60 characters).", example: "Phone" });
const FactorIdParam = z.object({
  factor_id: z.uuid().openapi({ param: { name: "factor_id", in: "path" }, description: "Factor id.", example: factorId }),
});

export function registerSecondFactorRoutes(router: AdminRouter, deps: CoreDeps): void {
  const rp = relyingPartyOf(deps.publicBaseUrl);

  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/me/second-factors",
      operationId: "listMySecondFactors",
      tags,
      summary: "List my second factors",
      description: `The caller's confirmed second factors (never a secret or a key). ${own}`,
      responses: { 200: { description: "The factors.", content: json(envelope(z.array(SecondFactor))) }, ...errorResponses("admin", [401, 409]) },
    }),
    async (c) => c.json({ data: await listSecondFactors(deps.db, ownOperatorId(c)), request_id: c.get("requestId") }, 200),
  );

  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/me/second-factors/totp",
        operationId: "startMyTotp",
        tags,
        summary: "Start setting up an authenticator app",
        description: `Returns a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) and its \`otpauth://\` URI this once; the factor counts once confirmed with a code (\`confirmMyTotp\`). Starting again replaces an unconfirmed one. ${own}`,
        request: { body: { required: true, content: json(z.object({ label: Label })) } },
        responses: {
          201: {
            description: "The unconfirmed factor and its secret, shown once.",
            content: json(
              envelope(
                z
                  .object({
                    id: z.uuid().openapi({ description: "The unconfirmed factor's id.", example: factorId }),
                    secret: z.string().openapi({ description: "The shared secret, base32 (shown once).", example: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" }),
                    otpauth_uri: z.string().openapi({ description: "The same as an `otpauth://totp/…` URI for the app.", example: "otpauth://totp/…" }),
                  })
                  .openapi("TotpSetup"),
              ),
            ),
          },
          ...errorResponses("admin", [400, 401, 409, 422]),
        },
      },
      { target: [], creates: "totp", supportMayWrite: true },
    ),
    async (c) => c.json({ data: await startTotp(deps.db, deps.secrets, ownOperatorId(c), c.req.valid("json").label), request_id: c.get("requestId") }, 201),
  );

  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/me/second-factors/totp/{factor_id}/confirm",
        operationId: "confirmMyTotp",
        tags,
        summary: "Confirm an authenticator app",
        description: `The app's current code (one 30-second step of skew either way is accepted) makes the factor count. A wrong code answers 422 with \`details[0].path: "code"\`. ${own}`,
        request: {
          params: FactorIdParam,
          body: { required: true, content: json(z.object({ code: z.string().max(12).openapi({ description: "The 6-digit code.", example: "492039" }) })) },
        },
        responses: { 200: { description: "Confirmed.", content: json(envelope(EnrolledFactor)) }, ...errorResponses("admin", [400, 401, 404, 409, 422]) },
      },
      { target: ["totp"], supportMayWrite: true },
    ),
    async (c) => {
      const confirmed = await confirmTotp(deps.db, deps.clock, deps.secrets, ownOperatorId(c), c.req.valid("param").factor_id, c.req.valid("json").code);
      return c.json({ data: confirmed, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/me/passkeys/registration-options",
        operationId: "startMyPasskeyRegistration",
        tags,
        summary: "Start registering a passkey",
        description: `WebAuthn creation options (\`PublicKeyCredentialCreationOptionsJSON\`) for \`navigator.credentials.create\` (or \`@simplewebauthn/browser\`'s \`startRegistration\`), bound to this deployment's origin (\`PUBLIC_BASE_URL\`), and the \`attempt_id\` the answer goes back with within 10 minutes. ${own}`,
        responses: {
          201: {
            description: "The options.",
            content: json(
              envelope(
                z
                  .object({
                    attempt_id: z.uuid().openapi({ description: "Send it back with the answer (`registerMyPasskey`).", example: factorId }),
                    options: z.record(z.string(), z.unknown()).openapi({ description: "PublicKeyCredentialCreationOptionsJSON.", example: { challenge: "…" } }),
                  })
                  .openapi("PasskeyRegistrationOptions"),
              ),
            ),
          },
          ...errorResponses("admin", [401, 409]),
        },
      },
      { target: [], supportMayWrite: true },
    ),
    async (c) => {
      const operatorId = ownOperatorId(c);
      const options = await passkeyRegistrationOptions(deps.db, rp, operatorId);
      const attempt = await startAttempt(deps.db, deps.clock, { kind: "passkey_registration", operatorId, data: { challenge: options.challenge } });
      return c.json({ data: { attempt_id: attempt.id, options: options as unknown as Record<string, unknown> }, request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/me/passkeys",
        operationId: "registerMyPasskey",
        tags,
        summary: "Register a passkey",
        description: `Verifies the browser's answer (\`RegistrationResponseJSON\`) against the challenge of \`attempt_id\` (used once) and stores the passkey. An answer that does not verify answers 422 with \`details[0].path: "response"\`; an unknown or expired attempt 404. ${own}`,
        request: {
          body: {
            required: true,
            content: json(
              z.object({
                attempt_id: z.uuid().openapi({ description: "From `startMyPasskeyRegistration`.", example: factorId }),
                label: Label,
                response: z.record(z.string(), z.unknown()).openapi({ description: "RegistrationResponseJSON from the browser.", example: { id: "…" } }),
              }),
            ),
          },
        },
        responses: { 201: { description: "Registered.", content: json(envelope(EnrolledFactor)) }, ...errorResponses("admin", [400, 401, 404, 409, 422]) },
      },
      { target: [], creates: "passkey", supportMayWrite: true },
    ),
    async (c) => {
      const operatorId = ownOperatorId(c);
      const body = c.req.valid("json");
      const attempt = await takeAttempt(deps.db, deps.clock, body.attempt_id, "passkey_registration");
      if (!attempt || attempt.operatorId !== operatorId || !attempt.data.challenge) throw new NotFoundError("Passkey registration attempt");
      const registered = await registerPasskey(deps.db, deps.clock, rp, {
        operatorId,
        challenge: attempt.data.challenge,
        label: body.label,
        response: body.response as unknown as RegistrationResponseJSON,
      });
      return c.json({ data: registered, request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "delete",
        path: "/v1/me/second-factors/{factor_id}",
        operationId: "removeMySecondFactor",
        tags,
        summary: "Remove one of my second factors",
        description: `With the last factor gone, the recovery codes go too; while the sign-in policy requires a second factor, the next password sign-in asks to set one up. ${own}`,
        request: { params: FactorIdParam },
        responses: { 204: { description: "Removed." }, ...errorResponses("admin", [401, 404, 409, 422]) },
      },
      { target: ["second_factor"], supportMayWrite: true },
    ),
    async (c) => {
      await removeSecondFactor(deps.db, ownOperatorId(c), c.req.valid("param").factor_id);
      return c.body(null, 204);
    },
  );

  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/me/recovery-codes",
      operationId: "countMyRecoveryCodes",
      tags,
      summary: "Count my unused recovery codes",
      description: `How many of the caller's recovery codes are still unused (never the codes: they are stored only hashed). 0 without a second factor. ${own}`,
      responses: {
        200: {
          description: "The count.",
          content: json(
            envelope(
              z
                .object({ left: z.number().int().openapi({ description: "Unused recovery codes (of ten made at a time).", example: 9 }) })
                .openapi("RecoveryCodesLeft"),
            ),
          ),
        },
        ...errorResponses("admin", [401, 409]),
      },
    }),
    async (c) => {
      const status = await secondFactorStatus(deps.db, ownOperatorId(c));
      return c.json({ data: { left: status.recoveryCodesLeft }, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/me/recovery-codes",
        operationId: "replaceMyRecoveryCodes",
        tags,
        summary: "Make new recovery codes",
        description: `Ten new one-time codes, shown this once; the earlier ones stop working. Needs a second factor (409 \`no_second_factor\` without one). ${own}`,
        responses: {
          201: {
            description: "The codes, shown once.",
            content: json(
              envelope(
                z
                  .object({ recovery_codes: z.array(z.string()).openapi({ description: "Ten new recovery codes, shown this once; each opens one sign-in." }) })
                  .openapi("NewRecoveryCodes"),
              ),
            ),
          },
          ...errorResponses("admin", [401, 409]),
        },
      },
      { target: [], supportMayWrite: true },
    ),
    async (c) => {
      const operatorId = ownOperatorId(c);
      if ((await listSecondFactors(deps.db, operatorId)).length === 0) {
        throw new ConflictError("Set up a second factor first: recovery codes stand in for one.", { reason: "no_second_factor" });
      }
      return c.json({ data: { recovery_codes: await replaceRecoveryCodes(deps.db, operatorId) }, request_id: c.get("requestId") }, 201);
    },
  );
}
