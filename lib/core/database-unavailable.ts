import { ApiError } from "./errors";

/*
 * A database that cannot be reached for a moment (restarted, failing over, refusing connections while it
 * starts or stops) is an outage of the service, not a fault of the request: the answer is 503 in the
 * envelope with `Retry-After`, never a 500 and never a hang (the pool's connection timeout bounds the
 * wait). The pool itself drops the broken connections and opens new ones once the server is back, so
 * nothing needs a restart. Recognised by the driver's error: SQLSTATE class 08 (connection exception),
 * 57P01–57P03 (admin/crash shutdown, cannot connect now), the socket errors and the pool's own messages.
 */

const UNAVAILABLE_SQLSTATES = /^(08...|57P0[123])$/;
const UNAVAILABLE_SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed and is not queryable|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|WebSocket was closed/i;

/** Seconds a caller waits before retrying a request refused during a database outage. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

/** Whether `error` (or what it wraps, as drizzle wraps driver errors in `cause`) is the database being unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.test(message)) return true;
    // AggregateError (a refused connection to both 127.0.0.1 and ::1) carries its causes in `errors`.
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    current = cause;
  }
  return false;
}

/** The 503 answered while the database is unreachable. */
export function databaseUnavailableError(): ApiError {
  return new ApiError("service_unavailable", "The database is unreachable for a moment; retry after the Retry-After delay.", {
    headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}
