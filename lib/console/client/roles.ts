import { get } from "./api";

/**
 * What the signed-in operator may do, read once from `/admin/v1/me`, applied to every page as it is drawn:
 * a write control the role may not use is disabled, its tooltip naming the role it needs, before anyone
 * fills it in. The admin API stays the enforcement point; this only keeps refusals from being a surprise.
 *
 * Deny by default: inside the page, every `<form>`, `<button>` and checkbox outside a form is taken for a write that needs `admin`
 * unless it (or an ancestor) says otherwise: `data-read` (a search, a filter, paging, a preview, a copy) or
 * `data-needs="support" | "admin" | "owner"` (the role the API declares for that write).
 */
type Role = "support" | "admin" | "owner";

const RANK: Record<Role, number> = { support: 0, admin: 1, owner: 2 };

let role: Role = (document.querySelector<HTMLMetaElement>('meta[name="operator-role"]')?.content as Role | undefined) ?? "support";

export async function loadRole(): Promise<void> {
  role = (await get<{ role: Role }>("me")).role;
}

const allows = (needed: Role): boolean => RANK[role] >= RANK[needed];

/** Attributes of a control that changes nothing. */
export const reads = { "data-read": "" };

function neededBy(element: Element): Role | null {
  const marked = element.closest("[data-read], [data-needs]");
  if (!marked) return "admin";
  if (marked.hasAttribute("data-read")) return null;
  return (marked.getAttribute("data-needs") as Role | null) ?? "admin";
}

const why = (needed: Role) => `Needs the ${needed} role; you are signed in as ${role}.`;

function restrict(element: Element): void {
  if (element.hasAttribute("data-role-checked")) return;
  element.setAttribute("data-role-checked", "");
  const needed = neededBy(element);
  if (!needed || allows(needed)) return;
  if (element instanceof HTMLFormElement) {
    for (const control of Array.from(element.elements)) {
      if (
        control instanceof HTMLButtonElement ||
        control instanceof HTMLInputElement ||
        control instanceof HTMLSelectElement ||
        control instanceof HTMLTextAreaElement
      ) {
        control.disabled = true;
        control.setAttribute("data-role-checked", "");
        if (control instanceof HTMLButtonElement) control.title = why(needed);
      }
    }
    const note = document.createElement("p");
    note.className = "hint role-note";
    note.textContent = `Read only: ${why(needed)}`;
    element.prepend(note);
  } else if (element instanceof HTMLButtonElement || (element instanceof HTMLInputElement && !element.form)) {
    // A button, or a toggle outside any form (a block enabled for a customer, a template assigned).
    element.disabled = true;
    element.title = why(needed);
  }
}

const CONTROLS = "form, button, input[type=checkbox]";

/** Restricts what is in `root` now and whatever is drawn into it later. */
export function watchRole(root: HTMLElement): void {
  const sweep = (node: ParentNode) => {
    for (const element of Array.from(node.querySelectorAll(CONTROLS))) restrict(element);
  };
  sweep(root);
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of Array.from(change.addedNodes)) {
        if (!(node instanceof Element)) continue;
        if (node.matches(CONTROLS)) restrict(node);
        sweep(node);
      }
    }
  }).observe(root, { childList: true, subtree: true });
}
