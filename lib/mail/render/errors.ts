import { ValidationError } from "../../core/errors";
import type { PathDetail } from "../../core/errors";

/**
 * 422 `validation_error` raised by rendering: the content cannot become a mail (missing required values,
 * URLs with a forbidden scheme, broken placeholder syntax, MJML that does not parse, a newsletter footer
 * without the unsubscribe link). `details` name the offending field, e.g. `blocks.2.values.url`.
 * MJML validation findings are not errors of this kind: they are returned in `errors[]` with the HTML.
 */
export class RenderValidationError extends ValidationError {
  readonly problems: readonly PathDetail[];

  constructor(problems: readonly PathDetail[]) {
    super(problems.length === 1 ? problems[0].message : "The template could not be rendered; see details.", [...problems]);
    this.name = "RenderValidationError";
    this.problems = problems;
  }
}
