import { z } from "@hono/zod-openapi";
import { urlProblem } from "../../mail";

/*
 * Pieces the operator's mail schemas share; each resource's schemas live in its folder's `schema.ts`.
 * Names carry the `Mail` prefix: the admin document also describes the ads side.
 */

export const blockId = "b7beda4d-2265-4334-ba1f-176be459d030";
export const customerId = "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11";
export const templateId = "0c6f3e2a-9b1d-4f5e-8a7c-2d4b6e8f0a13";
export const isoExample = "2026-03-01T10:00:00.000Z";

/**
 * A nullable named schema as `anyOf: [$ref, null]`: `.nullable()` on a referenced schema would render as
 * `allOf` with the description nested, which says "not null" and hides the description.
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/**
 * Parameter names are plain identifiers: `token.*` and `brand.*` resolve to design tokens and brand
 * values before any parameter, so dotted names could never be reached.
 */
export const parameterName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "Must be an identifier: letters, digits and _ (not starting with a digit), at most 64 characters.");

export const slug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "Must be lower-case letters and digits separated by single hyphens.")
  .max(64);

/** Examples and fallbacks of `url`/`image` parameters end up in `href`/`src`: the renderer's scheme allowlist applies. */
export function checkUrlValues(entries: readonly { type: string; example: string; fallback?: string | null }[], ctx: z.RefinementCtx): void {
  for (const [i, entry] of entries.entries()) {
    if (entry.type !== "url" && entry.type !== "image") continue;
    const kind = entry.type === "url" ? "link" : "image";
    for (const field of ["example", "fallback"] as const) {
      const value = entry[field];
      const problem = typeof value === "string" ? urlProblem(value, kind) : null;
      if (problem) ctx.addIssue({ code: "custom", path: [i, field], message: problem });
    }
  }
}

/** Names must be unique in a parameter list; the issue points at the repeated entry. */
export function checkUniqueNames(entries: readonly { name: string }[], ctx: z.RefinementCtx, what: string): void {
  const seen = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    if (seen.has(entry.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `Duplicate ${what} "${entry.name}".` });
    seen.add(entry.name);
  }
}

/** The documentation an admin view gives a field it takes unchanged from the customer schema. */
type FieldDoc = { description: string; example?: unknown };

/**
 * Fields of a customer schema with the operator's descriptions: the types stay the mail service's, and only
 * a field that schema has can be named, so an admin view (`Schema.extend({ ...redescribed(Schema.shape, …) })`)
 * lists only what it documents differently and derives everything else.
 */
export function redescribed<S extends z.ZodRawShape, K extends keyof S & string>(shape: S, docs: Record<K, FieldDoc>): Pick<S, K> {
  return Object.fromEntries(Object.entries<FieldDoc>(docs).map(([key, doc]) => [key, (shape[key] as z.ZodType).openapi(doc)])) as unknown as Pick<S, K>;
}

export const atLeastOneField = (value: object) => Object.keys(value).length > 0;
export const atLeastOneFieldMessage = "Send at least one field to change.";
