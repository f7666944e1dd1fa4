import { startAuthentication, startRegistration } from "@simplewebauthn/browser";

/**
 * The passkey buttons of the sign-in steps (second factor, enrolment): the options come from our server, the
 * browser's WebAuthn answer goes back to it, both same-origin with the attempt's CSRF value.
 */
export function runSignInStep(main: HTMLElement): void {
  const csrf = main.dataset.csrf ?? "";
  const status = document.getElementById("passkey-status");
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) throw new Error(typeof json.error === "string" ? json.error : `HTTP ${response.status}`);
    return json;
  };
  const say = (text: string) => {
    if (status) status.textContent = text;
  };
  document.getElementById("use-passkey")?.addEventListener("click", async () => {
    try {
      say("Waiting for the passkey…");
      const options = await post("/console/sign-in/passkey-options");
      const answer = await startAuthentication({ optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]["optionsJSON"] });
      const done = await post("/console/sign-in/passkey", answer);
      location.assign(String(done.location));
    } catch (error) {
      say(`Error: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  document.getElementById("register-passkey")?.addEventListener("click", async () => {
    try {
      say("Waiting for the passkey…");
      const options = await post("/console/sign-in/enrol/passkey-options");
      const answer = await startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]["optionsJSON"] });
      const done = await post("/console/sign-in/enrol/passkey", answer);
      const codes = Array.isArray(done.recovery_codes) ? (done.recovery_codes as string[]) : [];
      const heading = document.createElement("h1");
      heading.textContent = "Recovery codes";
      const note = document.createElement("p");
      note.textContent = "Passkey registered. Keep these codes somewhere safe: each signs you in once without your second factor. They are shown only now.";
      const list = document.createElement("ul");
      list.dataset.testid = "recovery-codes";
      for (const code of codes) {
        const item = document.createElement("li");
        const text = document.createElement("code");
        text.textContent = code;
        item.append(text);
        list.append(item);
      }
      const next = document.createElement("a");
      next.href = String(done.location);
      next.textContent = "Continue to the console";
      main.replaceChildren(heading, note, list, next);
    } catch (error) {
      say(`Error: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
