import { messagesPage, suppressionsPage, webhooksPage } from "./activity";
import { messagePage } from "./message";
import { deliveriesPage } from "./deliveries";
import { customerDeliverabilityPage } from "./deliverability";
import { overviewPage } from "./overview";
import { loadRole, watchRole } from "./roles";
import { searchBox, searchPage } from "./search";
import { adTemplatePage, adTemplatesPage } from "./ad-templates";
import { customerAdReviewPage } from "./ad-review";
import { customerAdsPage } from "./ads";
import { blockPage, blocksPage } from "./blocks";
import { customerPage, customersPage } from "./customers";
import { forgetUnsavedChanges, h, hasUnsavedChanges } from "./dom";
import { customerKeysPage } from "./keys";
import { customerMailPage } from "./mail";
import { sendJobPage, sendJobsPage } from "./send-jobs";
import { statsPage } from "./stats";
import { systemPage } from "./system";
import { auditLogPage, mePage, operatorPage, operatorsPage } from "./operators";
import { runSignInStep } from "./sign-in-step";

/**
 * The console's pages by URL hash (`#/customers/<id>/mail`): each draws itself into `<main>` from admin API
 * reads. A navigation starts a new "visit"; a page that polls stops when its visit is no longer current.
 */
type Page = (main: HTMLElement, params: string[], isCurrent: () => boolean) => Promise<void>;

const routes: [RegExp, Page, string][] = [
  [/^\/overview(?:\?(.*))?$/, (main, [query]) => overviewPage(main, query ?? ""), "Overview"],
  [/^\/search(?:\?(.*))?$/, (main, [query]) => searchPage(main, query ?? ""), "Search"],
  [/^\/customers$/, (main) => customersPage(main), "Customers"],
  [/^\/customers\/([0-9a-f-]{36})$/, (main, [id]) => customerPage(main, id as string), "Customer"],
  [/^\/customers\/([0-9a-f-]{36})\/keys$/, (main, [id]) => customerKeysPage(main, id as string), "API keys"],
  [
    /^\/customers\/([0-9a-f-]{36})\/mail(?:\/(provider|senders|usage|design|templates)(?:\/([0-9a-f-]{36}))?)?$/,
    (main, [id, section, template]) => customerMailPage(main, id as string, section as Parameters<typeof customerMailPage>[2], template),
    "Customer mail",
  ],
  [/^\/customers\/([0-9a-f-]{36})\/deliverability$/, (main, [id]) => customerDeliverabilityPage(main, id as string), "Deliverability"],
  [/^\/customers\/([0-9a-f-]{36})\/send-jobs$/, (main, [id]) => sendJobsPage(main, id as string), "Send jobs"],
  [
    /^\/customers\/([0-9a-f-]{36})\/send-jobs\/([0-9a-f-]{36})$/,
    (main, [id, job], isCurrent) => sendJobPage(main, id as string, job as string, isCurrent),
    "Send job",
  ],
  [/^\/customers\/([0-9a-f-]{36})\/stats(?:\?job=([0-9a-f-]{36}))?$/, (main, [id, job]) => statsPage(main, id as string, job), "Charts"],
  [/^\/customers\/([0-9a-f-]{36})\/messages(?:\?(.*))?$/, (main, [id, query]) => messagesPage(main, id as string, query ?? ""), "Messages"],
  [/^\/customers\/([0-9a-f-]{36})\/messages\/([0-9a-f-]{36})$/, (main, [id, message]) => messagePage(main, id as string, message as string), "Message"],
  [/^\/customers\/([0-9a-f-]{36})\/suppressions$/, (main, [id]) => suppressionsPage(main, id as string), "Suppressions"],
  [/^\/customers\/([0-9a-f-]{36})\/webhooks$/, (main, [id]) => webhooksPage(main, id as string), "Webhooks"],
  [
    /^\/customers\/([0-9a-f-]{36})\/webhooks\/(mail|ads)\/([0-9a-f-]{36})$/,
    (main, [id, service, webhook]) => deliveriesPage(main, id as string, service as string, webhook as string),
    "Webhook deliveries",
  ],
  [
    /^\/customers\/([0-9a-f-]{36})\/ads(?:\/(onboarding|targets|templates|plan|insights))?$/,
    (main, [id, section]) => customerAdsPage(main, id as string, section as Parameters<typeof customerAdsPage>[2]),
    "Customer ads",
  ],
  [/^\/customers\/([0-9a-f-]{36})\/adsets$/, (main, [id]) => customerAdReviewPage(main, id as string), "Ad sets and ads"],
  [/^\/blocks$/, (main) => blocksPage(main), "Block library"],
  [/^\/blocks\/([0-9a-f-]{36})$/, (main, [id]) => blockPage(main, id as string), "Block"],
  [/^\/ad-templates$/, (main) => adTemplatesPage(main), "Ad templates"],
  [/^\/ad-templates\/([0-9a-f-]{36})$/, (main, [id]) => adTemplatePage(main, id as string), "Ad template"],
  [/^\/system$/, (main, _params, isCurrent) => systemPage(main, isCurrent), "System"],
  [/^\/operators$/, (main) => operatorsPage(main), "Operators"],
  [/^\/operators\/([0-9a-f-]{36})$/, (main, [id]) => operatorPage(main, id as string), "Operator"],
  [/^\/me$/, (main) => mePage(main), "My account"],
  [/^\/audit-log(?:\?.*)?$/, (main) => auditLogPage(main), "Audit log"],
];

let visit = 0;

async function route(): Promise<void> {
  const main = document.getElementById("main");
  if (!main) return;
  const path = location.hash.replace(/^#/, "") || "/overview";
  const bare = path.split("?")[0] ?? path;
  const current = ++visit;
  const isCurrent = () => current === visit;
  Array.from(document.querySelectorAll<HTMLAnchorElement>(".top nav a")).forEach((link) => {
    const target = link.getAttribute("href")?.slice(1) ?? "";
    if (bare === target || bare.startsWith(`${target}/`)) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  });
  const match = routes.map(([pattern, page, title]) => ({ found: pattern.exec(path), page, title })).find((r) => r.found);
  if (!match?.found) {
    main.replaceChildren(h("h1", {}, "Not found"), h("p", {}, "No console page here. ", h("a", { href: "#/overview" }, "Go to the overview.")));
    return;
  }
  document.title = `${match.title} · Operator console`;
  main.replaceChildren(h("p", { role: "status" }, "Loading…"));
  // Focus moves to the new page (as a page load would), so keyboard and screen reader users start at its top.
  main.focus({ preventScroll: true });
  try {
    await match.page(main, match.found.slice(1), isCurrent);
  } catch (error) {
    if (!isCurrent()) return;
    main.replaceChildren(
      h("h1", {}, "This page could not load"),
      h("p", { class: "error", role: "alert" }, `Error: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}

// Leaving an editor with unsaved changes asks first: closing or reloading the tab (the browser's own
// prompt) and in-app navigation (a confirm; cancelling puts the address back without reloading the page).
window.addEventListener("beforeunload", (event) => {
  if (hasUnsavedChanges()) event.preventDefault();
});
const signInStep = document.querySelector<HTMLElement>("[data-sign-in-step]");
let shownHash = location.hash;
if (signInStep) runSignInStep(signInStep);
else {
  window.addEventListener("hashchange", () => {
    if (hasUnsavedChanges() && !confirm("This page has unsaved changes. Leave it and lose them?")) {
      history.replaceState(null, "", shownHash || "#/overview");
      return;
    }
    forgetUnsavedChanges();
    shownHash = location.hash;
    void route();
  });
  // The role is read once; every page is then drawn with only the controls it allows (roles.ts).
  const mainElement = document.getElementById("main");
  document.querySelector(".top nav")?.after(searchBox());
  void loadRole()
    .catch(() => undefined)
    .then(() => {
      if (mainElement) watchRole(mainElement);
      return route();
    });
}
