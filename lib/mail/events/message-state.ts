import type { messageStatuses } from "../../db/schema";
import { MESSAGE_EVENT, type MessageEventType } from "./types";

type Status = (typeof messageStatuses)[number];

/** The message fields provider events decide. */
export type MessageState = {
  status: Status;
  deliveredAt: Date | null;
  bouncedAt: Date | null;
  bounceType: string | null;
  /** Whether the recorded bounce is final (HardBounce or `Inactive: true`): only then does it outrank a delivery. */
  bounceFinal: boolean;
  complainedAt: Date | null;
  firstOpenedAt: Date | null;
  firstClickedAt: Date | null;
};

export type StateEvent = { type: MessageEventType; at: Date; bounceType?: string | null; bounceFinal?: boolean };

/** Statuses a provider event can move: the provider accepted the message (or we could not learn whether). */
export const EVENT_DRIVEN_STATUSES: ReadonlySet<Status> = new Set(["accepted", "delivered", "bounced", "complained", "unknown"]);

const earliest = (current: Date | null, at: Date): Date => (current && current.getTime() <= at.getTime() ? current : at);

/**
 * Folds one event into the state. Every rule is commutative, associative and idempotent (earliest time
 * for delivery, complaint, first open and click; of the bounces a final one over a soft one, then the
 * latest, ties broken by type name), so any order and any duplication of the same events give the same
 * state (DESIGN §5). The status follows from the fields by precedence: complained > final bounce >
 * delivered > soft bounce > accepted — a soft bounce (SoftBounce, `Inactive: false`) is recorded, but a
 * later delivery of the message shows `delivered`. It works on the stored fields rather than on the event
 * history, so it stays right after history is pruned.
 */
export function applyEvent(state: MessageState, event: StateEvent): MessageState {
  const next = { ...state };
  switch (event.type) {
    case MESSAGE_EVENT.delivered:
      next.deliveredAt = earliest(state.deliveredAt, event.at);
      break;
    case MESSAGE_EVENT.complained:
      next.complainedAt = earliest(state.complainedAt, event.at);
      break;
    case MESSAGE_EVENT.opened:
      next.firstOpenedAt = earliest(state.firstOpenedAt, event.at);
      break;
    case MESSAGE_EVENT.clicked:
      next.firstClickedAt = earliest(state.firstClickedAt, event.at);
      break;
    case MESSAGE_EVENT.bounced: {
      const type = event.bounceType ?? "Unknown";
      const final = event.bounceFinal ?? true;
      const current = state.bouncedAt?.getTime() ?? -Infinity;
      const later = event.at.getTime() > current || (event.at.getTime() === current && type > (state.bounceType ?? ""));
      const wins = state.bouncedAt === null || (final && !state.bounceFinal) || (final === state.bounceFinal && later);
      if (wins) {
        next.bouncedAt = event.at;
        next.bounceType = type;
        next.bounceFinal = final;
      }
      break;
    }
    default:
      return state;
  }
  next.status = statusByPrecedence(next);
  return next;
}

export function statusByPrecedence(state: Omit<MessageState, "status">): Status {
  if (state.complainedAt) return "complained";
  if (state.bouncedAt && state.bounceFinal) return "bounced";
  if (state.deliveredAt) return "delivered";
  if (state.bouncedAt) return "bounced";
  return "accepted";
}
