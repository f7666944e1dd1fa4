import { h } from "./dom";

/**
 * A new secret (a customer's API key, an operator's token), shown this once with a Copy button. Only a
 * hash is stored: once the page changes it cannot be shown again, so the text says so.
 */
export function shownOnce(place: HTMLElement, input: { what: string; value: string; testId: string }): void {
  const state = h("span", { role: "status", class: "hint" });
  const copy = h("button", { type: "button", class: "secondary", "data-read": "" }, `Copy ${input.what}`);
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      state.textContent = "Copied.";
    } catch {
      state.textContent = "The browser refused the clipboard; select the text and copy it by hand.";
    }
  });
  place.replaceChildren(
    h("p", {}, h("strong", {}, `New ${input.what}, shown this once. Copy it now:`), " it is stored only as a hash and cannot be shown again."),
    h("p", { class: "secret", "data-testid": input.testId }, input.value),
    h("div", { class: "row" }, copy, state),
  );
}
