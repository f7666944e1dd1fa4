import { LruCache } from "../../core/lru-cache";
import { compileTextTemplate } from "./compiled";
import type { Personaliser, RecipientData } from "./compiled";
import { RenderValidationError } from "./errors";
import { parseTemplate, TemplateSyntaxError } from "./syntax";

/**
 * A subject is plain text (no HTML escaping), but a value with a line break would end the header, so
 * CR/LF runs become one space, in the template's text as well as in values.
 */
export function subjectText(value: string): string {
  return /[\r\n]/.test(value) ? value.replace(/[\r\n]+/g, " ") : value;
}

/** Precompiles a subject once; the result renders one recipient (`data` wins over `defaults`). */
export function compileSubject(subject: string, path = "subject"): Personaliser {
  try {
    return compileTextTemplate(parseTemplate(subject), subjectText);
  } catch (error) {
    if (error instanceof TemplateSyntaxError) throw new RenderValidationError([{ path, message: error.message }]);
    throw error;
  }
}

const subjects = new LruCache<Personaliser>(1000);

/** `{{placeholder}}` and sections in a subject, filled from recipient data; unknown names render as nothing. */
export function personaliseSubject(subject: string, data: RecipientData, defaults?: RecipientData): string {
  let personaliser = subjects.get(subject);
  if (personaliser === undefined) {
    personaliser = compileSubject(subject);
    subjects.set(subject, personaliser);
  }
  return personaliser(data, defaults);
}
