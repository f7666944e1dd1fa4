import { startRegistration } from "@simplewebauthn/browser";
import { renderSVG } from "uqr";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get, send } from "./api";
import { card, date, form, h, outcome, table } from "./dom";

type Schemas = components["schemas"];
type SecondFactor = Schemas["SecondFactor"];
type TotpSetup = Schemas["TotpSetup"];
type EnrolledSecondFactor = Schemas["EnrolledSecondFactor"];
type PasskeyRegistrationOptions = Schemas["PasskeyRegistrationOptions"];
type NewRecoveryCodes = Schemas["NewRecoveryCodes"];
type RecoveryCodesLeft = Schemas["RecoveryCodesLeft"];
type SignInPolicy = Schemas["SignInPolicy"];
type Operator = Schemas["Operator"];

/**
 * The second factors of the signed-in operator's own account ("My account"): the factors in use, setting up an
 * authenticator app (its secret and QR code shown once, counted once a code confirms it), registering a
 * passkey in this browser, removing either, and new recovery codes (shown once). Every control changes only
 * the caller's own account, so every role may use it (`data-needs="support"`).
 */
export async function secondFactorCard(): Promise<HTMLElement> {
  const list = h("div", {});
  const shown = h("div", { "aria-live": "polite" });
  const codesLeft = h("p", { "data-testid": "recovery-codes-left" });
  const draw = async () => {
    const result = outcome();
    const [factors, codes] = await Promise.all([get<SecondFactor[]>("me/second-factors"), get<RecoveryCodesLeft>("me/recovery-codes")]);
    codesLeft.textContent = factors.length === 0 ? "None: they come with a second factor." : `${codes.left} of 10 unused.`;
    list.replaceChildren(
      factors.length === 0
        ? h("p", { "data-testid": "no-second-factor" }, "No second factor yet: a password alone signs in to this account.")
        : table(
            ["Kind", "Name", "Set up", "Last used", ""],
            factors.map((f) => [
              f.kind === "totp" ? "Authenticator app" : "Passkey",
              f.label,
              date(f.created_at),
              date(f.last_used_at),
              h(
                "button",
                {
                  type: "button",
                  class: "secondary",
                  "data-needs": "support",
                  "aria-label": `Remove ${f.kind === "totp" ? "authenticator app" : "passkey"} ${f.label}`,
                  onClick: async () => {
                    const last = factors.length === 1 ? " It is your last one: your recovery codes stop working too." : "";
                    if (!confirm(`Remove "${f.label}"?${last}`)) return;
                    try {
                      await send("DELETE", `me/second-factors/${f.id}`);
                      shown.replaceChildren();
                      await draw();
                    } catch (error) {
                      result.fail(error);
                    }
                  },
                },
                "Remove",
              ),
            ]),
            "My second factors",
          ),
      result.element,
    );
  };
  await draw();

  const codesShown = (codes: string[], why: string) =>
    shown.replaceChildren(
      h("p", {}, h("strong", {}, why), " Keep them somewhere safe: each signs you in once without your second factor. They are shown only now."),
      h("ul", { "data-testid": "recovery-codes", class: "codes" }, ...codes.map((code) => h("li", {}, h("code", {}, code)))),
    );
  const enrolled = async (made: EnrolledSecondFactor, what: string) => {
    if (made.recovery_codes) codesShown(made.recovery_codes, `${what} set up. Your recovery codes:`);
    else shown.replaceChildren(h("p", { class: "notice" }, `✓ ${what} set up; your recovery codes stay as they were.`));
    await draw();
    return `${what} "${made.factor.label}" set up.`;
  };

  const totp = form({
    needs: "support",
    title: "Add an authenticator app",
    fields: [{ path: "label", label: "Name of the app or phone", value: "Phone", required: true }],
    submit: "Show the secret",
    onSubmit: async (values) => {
      const setup = await send<TotpSetup>("POST", "me/second-factors/totp", values);
      const qr = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(setup.otpauth_uri))}`;
      const confirmForm = form({
        needs: "support",
        fields: [{ path: "code", label: "Code from the authenticator app", required: true, hint: "The 6 digits the app shows now." }],
        submit: "Confirm the app",
        onSubmit: async (code) => enrolled(await send<EnrolledSecondFactor>("POST", `me/second-factors/totp/${setup.id}/confirm`, code), "Authenticator app"),
      });
      shown.replaceChildren(
        h("p", {}, h("strong", {}, "Scan this code with the authenticator app, or type the secret into it."), " It is shown only now."),
        h("img", { src: qr, alt: "QR code of the authenticator app's secret", width: 200, height: 200, class: "qr", "data-testid": "totp-qr" }),
        h("p", { class: "secret", "data-testid": "totp-secret" }, setup.secret),
        confirmForm,
      );
      return "Secret made: confirm it with a code from the app.";
    },
  });

  const passkey = form({
    needs: "support",
    title: "Add a passkey",
    fields: [{ path: "label", label: "Name of the passkey", value: "Passkey", required: true }],
    submit: "Register a passkey",
    onSubmit: async (values) => {
      if (!window.PublicKeyCredential) throw new Error("This browser has no passkey support (WebAuthn).");
      const started = await send<PasskeyRegistrationOptions>("POST", "me/passkeys/registration-options");
      const response = await startRegistration({ optionsJSON: started.options as unknown as Parameters<typeof startRegistration>[0]["optionsJSON"] });
      return enrolled(await send<EnrolledSecondFactor>("POST", "me/passkeys", { attempt_id: started.attempt_id, label: values.label, response }), "Passkey");
    },
  });

  const codesResult = outcome();
  const newCodes = h(
    "button",
    {
      type: "button",
      class: "secondary",
      "data-needs": "support",
      onClick: async () => {
        if (!confirm("Make ten new recovery codes? The ones you have stop working.")) return;
        try {
          codesResult.clear();
          const made = await send<NewRecoveryCodes>("POST", "me/recovery-codes");
          codesShown(made.recovery_codes, "New recovery codes; the earlier ones no longer work:");
          await draw();
        } catch (error) {
          codesResult.fail(error);
        }
      },
    },
    "Make new recovery codes",
  );

  return card(
    "Second factor",
    h(
      "p",
      { class: "hint" },
      "A password sign-in also asks for one of these. Accounts that sign in through single sign-on follow the identity provider's own second factor instead.",
    ),
    list,
    h("div", { class: "row" }, totp, passkey),
    h("h3", {}, "Recovery codes"),
    h("p", { class: "hint" }, "Ten one-time codes are made with your first factor. Lost them, or used some? Make new ones (needs a second factor)."),
    codesLeft,
    h("div", { class: "row" }, newCodes),
    codesResult.element,
    shown,
  );
}

/** The sign-in policy (owners): a second factor for every password account, password sign-in for the break-glass owner only. */
export async function signInPolicyCard(operators: Operator[]): Promise<HTMLElement> {
  const policy = await get<SignInPolicy>("sign-in-policy");
  const owners = operators.filter((o) => o.role === "owner" && !o.disabled_at);
  return card(
    "Sign-in policy",
    form({
      needs: "owner",
      sendOnlyChanged: true,
      guard: true,
      fields: [
        {
          path: "require_second_factor",
          label: "Every password account needs a second factor",
          type: "checkbox",
          value: policy.require_second_factor,
          hint: "An operator without one sets one up at the next sign-in, before the console opens.",
        },
        {
          path: "password_sign_in",
          label: "Password sign-in",
          type: "select",
          value: policy.password_sign_in,
          options: [
            { value: "everyone", label: "Open to every password account" },
            { value: "break_glass_only", label: "Only the break-glass owner (needs single sign-on)" },
          ],
        },
        {
          path: "break_glass_operator_id",
          label: "Break-glass owner",
          type: "select",
          value: policy.break_glass_operator_id ?? "",
          options: [{ value: "", label: "None" }, ...owners.map((o) => ({ value: o.id, label: o.email }))],
          hint: "Keeps password sign-in while it is closed to the others; each of their sign-ins is marked break-glass in the audit log.",
        },
      ],
      submit: "Save the policy",
      onSubmit: async (values) => {
        if (values.break_glass_operator_id === "") values.break_glass_operator_id = null;
        if (Object.keys(values).length === 0) return "Nothing changed.";
        const saved = await send<SignInPolicy>("PATCH", "sign-in-policy", values);
        return `Saved: ${saved.require_second_factor ? "a second factor is required" : "a second factor is optional"}.`;
      },
    }),
  );
}
