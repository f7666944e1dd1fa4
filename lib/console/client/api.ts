/** The admin API as the console reaches it: `/console/api/<path>` behind the session cookie. */

export type Problem = { path: string; message: string };

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: Problem[],
  ) {
    super(message);
  }
}

const csrfToken = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";

/** `details` is a list of `{ path, message }` for validation, an object (e.g. `{ reason }`) elsewhere. */
function problemsOf(details: unknown): Problem[] {
  if (Array.isArray(details)) {
    return details.filter((d): d is Problem => typeof d === "object" && d !== null && typeof d.path === "string" && typeof d.message === "string");
  }
  if (details && typeof details === "object") {
    const record = details as Record<string, unknown>;
    if (Array.isArray(record.missing)) return record.missing.map((m) => ({ path: String(m), message: "Missing." }));
  }
  return [];
}

export type Envelope<T> = { data: T; paging?: { after: string | null; has_next: boolean } };

/**
 * Asks the operator to confirm who they are (the password, with a code of the authenticator app or a recovery
 * code when one is enrolled, or for a session of the shared token the token) in
 * a modal dialog and sends it to `/console/reauthenticate`; true once the server took it, false when the
 * operator cancelled. Sensitive operations answer 403 `reauthentication_required` when the session's sign-in
 * is older than the server's limit; `call` then asks here and retries once.
 */
async function reauthenticate(reason: string): Promise<boolean> {
  const kind = document.querySelector<HTMLMetaElement>('meta[name="session-kind"]')?.content;
  const usesToken = kind === "token";
  const asksCode = kind === "password+code";
  const name = usesToken ? "token" : "password";
  const dialog = document.createElement("dialog");
  dialog.setAttribute("aria-labelledby", "reauth-title");
  dialog.innerHTML = `<form method="dialog" novalidate><h2 id="reauth-title">Confirm it is you</h2><p id="reauth-why"></p><div class="field"><label for="reauth-secret">${usesToken ? "Operator token" : "Password"}</label><input id="reauth-secret" type="password" autocomplete="${usesToken ? "off" : "current-password"}" aria-describedby="reauth-why reauth-error"></div>${asksCode ? `<div class="field"><label for="reauth-code">Code from the authenticator app, or a recovery code</label><input id="reauth-code" type="text" autocomplete="one-time-code" aria-describedby="reauth-error"></div>` : ""}<p id="reauth-error" class="error" role="alert"></p><p class="row"><button type="submit" value="confirm">Confirm</button> <button type="submit" value="cancel" class="secondary" formnovalidate>Cancel</button></p></form>`;
  (dialog.querySelector("#reauth-why") as HTMLElement).textContent = reason;
  document.body.appendChild(dialog);
  const input = dialog.querySelector("#reauth-secret") as HTMLInputElement;
  const codeInput = dialog.querySelector<HTMLInputElement>("#reauth-code");
  const error = dialog.querySelector("#reauth-error") as HTMLElement;
  dialog.showModal();
  input.focus();
  try {
    for (;;) {
      const choice = await new Promise<string>((resolve) => {
        dialog
          .querySelector("form")
          ?.addEventListener("submit", (event) => resolve((event as SubmitEvent).submitter?.getAttribute("value") ?? "confirm"), { once: true });
        dialog.addEventListener("cancel", () => resolve("cancel"), { once: true });
      });
      if (choice === "cancel") return false;
      const answer = await fetch("/console/reauthenticate", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "x-csrf-token": csrfToken },
        body: JSON.stringify({ [name]: input.value, ...(codeInput ? { code: codeInput.value } : {}) }),
        credentials: "same-origin",
      });
      if (answer.ok) return true;
      const failure = (await answer.json().catch(() => ({}))) as { error?: { message?: string } };
      error.textContent = `Error: ${failure.error?.message ?? `The server answered ${answer.status}.`}`;
      input.value = "";
      if (codeInput) codeInput.value = "";
      if (!dialog.open) dialog.showModal();
      input.focus();
    }
  } finally {
    dialog.close();
    dialog.remove();
  }
}

async function call<T>(method: string, path: string, body?: unknown, retried = false): Promise<Envelope<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`/console/api/${path.replace(/^\//, "")}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiFailure(0, "network", "The server could not be reached. Check that it is running and try again.", []);
  }
  if (response.status === 401) {
    location.assign("/console/sign-in?expired");
    throw new ApiFailure(401, "unauthorized", "Your session ended. Sign in again.", []);
  }
  if (response.status === 204) return { data: undefined as T };
  const text = await response.text();
  let json: { data?: T; paging?: Envelope<T>["paging"]; error?: { code: string; message: string; details: unknown } } = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiFailure(response.status, "invalid_response", `The server answered ${response.status} without JSON.`, []);
  }
  const reason = (json.error?.details as { reason?: unknown } | undefined)?.reason;
  if (response.status === 403 && reason === "reauthentication_required" && !retried && (await reauthenticate(json.error?.message ?? ""))) {
    return call<T>(method, path, body, true);
  }
  if (!response.ok || json.error) {
    const error = json.error ?? { code: "error", message: `The server answered ${response.status}.`, details: [] };
    throw new ApiFailure(response.status, error.code, error.message, problemsOf(error.details));
  }
  return { data: json.data as T, paging: json.paging };
}

export const get = async <T>(path: string): Promise<T> => (await call<T>("GET", path)).data;
export const send = async <T>(method: "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<T> =>
  (await call<T>(method, path, body)).data;

/** Every page of a cursor-paged list, bounded (the console lists, it does not export). */
export async function getAll<T>(path: string, maxPages = 20): Promise<T[]> {
  const items: T[] = [];
  let after: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const separator = path.includes("?") ? "&" : "?";
    const answer: Envelope<T[]> = await call<T[]>("GET", `${path}${separator}limit=100${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    items.push(...answer.data);
    if (!answer.paging?.has_next || !answer.paging.after) break;
    after = answer.paging.after;
  }
  return items;
}

/** One page of a cursor-paged list with its `paging` (the console's paged tables: Next follows `paging.after`). */
export const getPage = async <T>(path: string): Promise<{ data: T[]; paging: { after: string | null; has_next: boolean } }> => {
  const answer = await call<T[]>("GET", path);
  return { data: answer.data, paging: answer.paging ?? { after: null, has_next: false } };
};
