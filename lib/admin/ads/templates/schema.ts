import { z } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { SALE_BANNER } from "../../../ads";
import { LAYOUT_RULES, templateId } from "../../../ads";
import { TemplateInput } from "../../../ads";
import { validationFailure } from "../../../core/app";
import { CustomerIdParam } from "../../customers/schema";

export const tags = ["Ads templates"];

export const templateBody = (partial: boolean) =>
  z.record(z.string(), z.unknown()).openapi(partial ? "UpdateAdminAdTemplate" : "CreateAdminAdTemplate", {
    description: `${partial ? "Any of" : "All of"} \`name\` (1–100), \`description\` (≤ 500), \`type\` (\`image\`|\`video\`), \`params\` (≤ 30), \`layouts\` (all three ratios), \`highlight\`${partial ? ", `status` (`active`|`inactive`)" : ""}. ${LAYOUT_RULES}`,
    example: partial
      ? { status: "inactive" }
      : {
          name: SALE_BANNER.name,
          description: SALE_BANNER.description,
          type: "image",
          params: SALE_BANNER.params,
          layouts: SALE_BANNER.layouts,
          highlight: SALE_BANNER.highlight,
        },
  });

export const TemplateIdParam = z.object({
  template_id: z.uuid().openapi({ param: { name: "template_id", in: "path" }, description: "Template id.", example: templateId }),
});
export const AssignmentParams = CustomerIdParam.extend({
  template_id: z.uuid().openapi({ param: { name: "template_id", in: "path" }, description: "Template id.", example: templateId }),
});

export function parse<T>(schema: { safeParse(input: unknown): { success: true; data: T } | { success: false; error: ZodError } }, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailure(result.error, input, "body");
  return result.data;
}

export const UpdateInput = TemplateInput.partial().extend({ status: z.enum(["active", "inactive"]).optional() });
