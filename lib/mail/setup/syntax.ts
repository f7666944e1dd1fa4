import { ValidationError } from "../../core/errors";
import { parseTemplate, TemplateSyntaxError } from "../render/syntax";

/** Placeholder syntax problems of operator-supplied fragments as a 422 naming the field. */
export function checkPlaceholderSyntax(fields: [path: string, text: string][]): void {
  const problems: { path: string; message: string }[] = [];
  for (const [path, text] of fields) {
    try {
      parseTemplate(text);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      problems.push({ path, message: error.message });
    }
  }
  if (problems.length > 0) throw new ValidationError("Invalid placeholder syntax; see details.", problems);
}
