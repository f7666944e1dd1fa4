import type { Clock } from "../base/clock";
import type { Config } from "../core/config";
import type { OperatorActor } from "../core/principal";
import { ForbiddenError } from "../core/errors";

/**
 * Sensitive operations (revealing a secret, creating or promoting an owner, setting a provider credential)
 * need the caller to have proved who they are recently: a console session whose sign-in or re-authentication
 * (`POST /console/reauthenticate`) is at most `CONSOLE_REAUTH_MINUTES` old. Anything else answers 403
 * `forbidden` with `details.reason: "reauthentication_required"`, which the console answers by asking for the
 * password (and, where the sign-in has one, the second factor) and trying again.
 *
 * An operator API token and the CLI have no interactive person behind them to ask: they were made or started
 * by an authenticated operator for automation, and are accepted as they are (their use is audited).
 */
const REAUTHENTICATION_REQUIRED = "reauthentication_required";

/**
 * A sentence for the OpenAPI description of a sensitive operation (the route definitions are made before any
 * configuration is read, so it names the variable and its default).
 */
export function recentAuthSentence(): string {
  return `Sensitive: through a console session it needs a sign-in or re-authentication (\`POST /console/reauthenticate\`) no older than \`CONSOLE_REAUTH_MINUTES\` (default 10 minutes), else 403 \`forbidden\` with \`details.reason: "reauthentication_required"\`; an operator API token is accepted as it is.`;
}

/** Throws the 403 when the actor is a console session whose last authentication is older than the limit. */
export function requireRecentAuth(deps: { clock: Clock; config: Pick<Config, "CONSOLE_REAUTH_MINUTES"> }, actor: OperatorActor, action: string): void {
  if (actor.sessionId === null) return;
  const maxAgeMs = deps.config.CONSOLE_REAUTH_MINUTES * 60_000;
  const at = actor.authenticatedAt?.getTime() ?? 0;
  if (deps.clock.now().getTime() - at <= maxAgeMs) return;
  throw new ForbiddenError(`${action} needs you to confirm who you are: enter your password again (re-authentication), then retry.`, {
    reason: REAUTHENTICATION_REQUIRED,
    action,
    max_age_seconds: maxAgeMs / 1000,
  });
}
