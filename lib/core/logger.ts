/**
 * Structured one-line JSON logs. Field names that can carry secrets are redacted here, once, so no call
 * site can leak a token by accident.
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

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, secretField.test(k) ? "[redacted]" : redact(v, depth + 1)]),
  );
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  const emit = (at: Exclude<LogLevel, "silent">) => (message: string, fields: Record<string, unknown> = {}) => {
    if (order[at] < order[level]) return;
    write(JSON.stringify({ level: at, time: new Date().toISOString(), message, ...(redact(fields) as object) }));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
