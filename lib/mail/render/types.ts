import type { BlockParam } from "../../db/json-columns";
import type { templateKinds } from "../../db/schema";
import type { DesignTokens } from "./tokens";

export type { BlockParam };

export type TemplateKind = (typeof templateKinds)[number];

/** What the renderer needs of a block; the stored block carries more (name, series, tile_url…). */
export interface BlockDefinition {
  id: string;
  slug: string;
  /** Body-level MJML: one or more `mj-section`/`mj-wrapper` elements. */
  mjml: string;
  params: readonly BlockParam[];
  /** Tag slugs; a block tagged `footer` never appears in a stack because footers come from the frame. */
  tags: readonly string[];
}

/** Customer brand values, available to every fragment as `{{brand.<key>}}`. Null renders as empty. */
export type Brand = {
  company_name: string;
  logo_url: string | null;
  website_url: string | null;
  /** Legal imprint; line breaks render as `<br>`. */
  imprint: string;
  /** Postal address; line breaks render as `<br>`. */
  address: string;
};

export interface Frame {
  /** Body-level MJML placed before the stack, e.g. a logo header. */
  header_mjml?: string | null;
  /** Must link `{{{ pm:unsubscribe }}}`; see `assertNewsletterFooter`. */
  newsletter_footer_mjml: string;
  transactional_footer_mjml: string;
  brand: Brand;
}

/** Spec: Block reference (in a stack). */
interface StackEntry {
  block_id: string;
  values: Readonly<Record<string, string>>;
}

/** Spec: Template parameter contract entry. */
export interface TemplateParam {
  name: string;
  label: string;
  type: string;
  required: boolean;
  example: string;
}

export interface CompileStackInput {
  kind: TemplateKind;
  stack: readonly StackEntry[];
  /** The block definitions the stack refers to (looked up by id). */
  blocks: ReadonlyMap<string, BlockDefinition> | readonly BlockDefinition[];
  /** Global values: merged into and overriding every block's values. */
  values?: Readonly<Record<string, string>>;
  /** Values of the template's parameters (admin templates at send time); they override global values. */
  params?: Readonly<Record<string, string>>;
  /** The template's parameter contract; every required entry must have a non-empty value in `params`. */
  contract?: readonly TemplateParam[];
  tokens: DesignTokens;
  frame: Frame;
}

/** Spec: preview `errors[]` entry. MJML validation problems are reported, not thrown. */
export interface RenderIssue {
  line: number | null;
  message: string;
  tagName: string | null;
}
