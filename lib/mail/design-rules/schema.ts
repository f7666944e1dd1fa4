import { z } from "@hono/zod-openapi";
import { defaultDesignTokens } from "../render/tokens";

export const DesignTokens = z.record(z.string(), z.string()).openapi("DesignTokens", {
  description:
    "Resolved render values (all strings, sizes in px): the customer's overrides over complete defaults. Keys: " +
    Object.keys(defaultDesignTokens).join(", ") +
    ". Besides the spec's keys there are status colours (`color_success`, `color_warning`, `color_danger`, `color_info`) and component tokens (buttons, headings, dividers, images).",
  example: { ...defaultDesignTokens },
});
