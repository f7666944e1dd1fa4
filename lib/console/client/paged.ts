import { getPage } from "./api";
import { h, table } from "./dom";
import { reads } from "./roles";

/**
 * A paged table over a cursor-paged admin list: draws one page, "Next page" follows `paging.after`,
 * "Previous page" goes back through the cursors already seen. Everything is searched and sorted on the
 * server, so nothing is capped at what the browser loaded. Returns the element and a `load(path)` that
 * starts again from the first page.
 */
export function pagedTable<T>(headers: string[], row: (item: T, reload: () => void) => (Node | string | number | null)[], empty: string) {
  const body = h("div", {});
  const status = h("p", { role: "status", class: "hint", "data-testid": "page-status" });
  let current = "";
  // Cursors of the pages seen, so "Previous page" needs no backwards cursor from the server.
  let trail: (string | null)[] = [null];
  const show = async (index: number): Promise<void> => {
    const after = trail[index] ?? null;
    const separator = current.includes("?") ? "&" : "?";
    const page = await getPage<T>(`${current}${after ? `${separator}after=${encodeURIComponent(after)}` : ""}`);
    const reload = () => void show(index);
    if (page.paging.has_next) trail = [...trail.slice(0, index + 1), page.paging.after];
    else trail = trail.slice(0, index + 1);
    status.textContent =
      page.data.length === 0 ? "" : `Page ${index + 1}, ${page.data.length} shown${page.paging.has_next ? ", more on the next page" : ", last page"}.`;
    body.replaceChildren(
      page.data.length === 0
        ? h("p", {}, empty)
        : table(
            headers,
            page.data.map((item) => row(item, reload)),
          ),
      h(
        "div",
        { class: "row" },
        index > 0 ? h("button", { type: "button", class: "secondary", ...reads, onclick: () => void show(0) }, "First page") : null,
        index > 0 ? h("button", { type: "button", class: "secondary", ...reads, onclick: () => void show(index - 1) }, "Previous page") : null,
        page.paging.has_next ? h("button", { type: "button", class: "secondary", ...reads, onclick: () => void show(index + 1) }, "Next page") : null,
      ),
    );
  };
  const load = async (path: string): Promise<void> => {
    current = path;
    trail = [null];
    await show(0);
  };
  return { element: h("div", {}, status, body), load };
}
