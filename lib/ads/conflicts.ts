import { ConflictError } from "../core/errors";

/** Archived objects stay readable but take no changes and cannot be built on: a 409 with a reason. */
export function archivedConflict(what: "ad set" | "creative" | "ad"): ConflictError {
  return new ConflictError(`The ${what} is archived; archived objects cannot be used or changed.`, { reason: `${what.replace(/ /g, "_")}_archived` });
}
