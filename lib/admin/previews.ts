import type { Database } from "../db/client";
import { defaultFrame } from "../mail";
import { frameFor, renderForCustomer } from "../mail";
import type { CompileResult } from "../mail";
import { personaliseSubject } from "../mail";
import { getTemplateRow, toTemplateView } from "../mail";
import { renderTile, type RenderedTile } from "../mail";
import { defaultDesignTokens } from "../mail";
import type { BlockParam } from "../db/json-columns";
import { getDesignRules } from "../mail";

/**
 * An unsaved block as a tile, for the console's live preview while an operator types: the tile pipeline
 * customers get (`renderTile`), in a customer's design and brand or the defaults. Drafts change with every
 * keystroke, so nothing is cached.
 */
export async function previewDraftBlock(
  db: Database,
  customer: { id: string; name: string } | null,
  draft: { mjml: string; params: readonly BlockParam[] },
): Promise<RenderedTile> {
  const [tokens, frame] = customer
    ? await Promise.all([getDesignRules(db, customer.id).then((design) => design.tokens), frameFor(db, customer.id, customer.name)])
    : [defaultDesignTokens, defaultFrame];
  return renderTile({ id: "draft", slug: "draft", mjml: draft.mjml, params: draft.params, tags: [] }, tokens, frame.brand);
}

/**
 * A stored template of a customer rendered as a send would render it (`renderForCustomer`), with its
 * contract's example values as the parameters and an empty recipient: what the operator checks before a
 * customer sends it.
 */
export async function previewStoredTemplate(
  db: Database,
  customer: { id: string; name: string },
  templateId: string,
): Promise<{ subject: string; html: string; errors: CompileResult["errors"] }> {
  const template = toTemplateView(await getTemplateRow(db, customer.id, templateId));
  const params = Object.fromEntries(template.params.map((p) => [p.name, p.example]));
  const rendered = await renderForCustomer(db, customer, {
    kind: template.kind,
    stack: template.blocks ?? [],
    values: template.values,
    params,
    contract: template.params,
  });
  return { subject: personaliseSubject(template.subject, { ...template.values, ...params }), html: rendered.html, errors: rendered.errors };
}
