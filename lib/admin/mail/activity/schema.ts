import { z } from "@hono/zod-openapi";
import { RenderError } from "../../../mail";
import { CustomerIdParam } from "../../customers/schema";

export const tags = ["Mail activity"];

export const TemplateParams = CustomerIdParam.extend({
  templateId: z.uuid().openapi({ param: { name: "templateId", in: "path" }, description: "Template id.", example: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" }),
});

export const TemplatePreview = z
  .object({
    subject: z.string().openapi({ description: "The subject with the example values.", example: "Your order A-10023" }),
    html: z.string().openapi({ description: "The compiled HTML document, for an iframe `srcdoc`.", example: "<!doctype html><html>…</html>" }),
    errors: z.array(RenderError).openapi({ description: "MJML findings; empty when clean." }),
  })
  .openapi("AdminMailTemplatePreview");

export const JobParams = CustomerIdParam.extend({
  jobId: z.uuid().openapi({ param: { name: "jobId", in: "path" }, description: "Send job id.", example: "8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a" }),
});
