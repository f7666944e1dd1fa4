import { withoutAddresses } from "./personal-data";
import { logCorrelation } from "./tracing";

/**
 * Structured one-line JSON logs. Redaction happens here, once, so no call site can leak by accident:
 * fields named like a secret or like personal data are replaced, and every string (messages, error texts,
 * stacks) is scrubbed of e-mail addresses, API keys, Basic/Bearer credentials and a failed query's values.
 * A line written while a request is handled carries its `request_id` (tracing on or off); inside a traced
 * request or job also `trace_id` and `span_id`.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type Logger = {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const secretField = /(token|secret|password|authorization|api[_-]?key|cookie|^key$)/i;
/** Fields that name or reach a person. */
const personalField = /^(e-?mails?|to|cc|bcc|from|recipients?|(first|last|full|display)_?name|phone|address|contacts?|data)$/i;

const API_KEY = /\b(mk|ak)_live_[A-Za-z0-9_-]+/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
/** drizzle's "Failed query: … \nparams: …": the values of a failed query never reach the log, only its text. */
const QUERY_PARAMS = /\nparams: [^\n]*/g;

/** Personal data and credentials inside free text (error messages, provider answers, stacks). */
function scrub(text: string): string {
  return withoutAddresses(text.replace(QUERY_PARAMS, "\nparams: [redacted]")).replace(API_KEY, "$1_live_[redacted]").replace(BEARER, "$1 [redacted]");
}

function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrub(value);
  if (value instanceof Error) return scrub(`${value.name}: ${value.message}`);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, secretField.test(k) || personalField.test(k) ? "[redacted]" : redact(v, depth + 1)]));
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  const emit =
    (at: Exclude<LogLevel, "silent">) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (order[at] < order[level]) return;
      // The active trace, span and request (when tracing is on) come first; explicit fields may override them.
      write(JSON.stringify({ level: at, time: new Date().toISOString(), message: scrub(message), ...logCorrelation(), ...(redact(fields) as object) }));
    };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
