import { GraphFault, parameterCheck } from "./graph-faults";
import type { SimulatorState } from "./state";

/** Graph's cap on ids in one `?ids=` read. */
const SIM_MAX_IDS = 50;

/**
 * `GET /?ids=a,b,c&fields=…`: one object per id, keyed by id, each narrowed to the requested fields.
 * Like Graph, the whole read fails when one id is unknown (code 803, naming the ids) and when more than
 * 50 ids are asked for (code 100).
 */
export function readMany(state: SimulatorState, rawIds: string, narrow: (view: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> {
  const ids = [
    ...new Set(
      rawIds
        .split(",")
        .map((id) => id.trim())
        .filter((id) => id !== ""),
    ),
  ];
  if (ids.length === 0) throw parameterCheck("The parameter ids is required", "ids");
  if (ids.length > SIM_MAX_IDS) throw parameterCheck(`Too many IDs. Maximum: ${SIM_MAX_IDS}. Provided: ${ids.length}.`, "ids");
  const missing = ids.filter((id) => !/^\d+$/.test(id) || state.view(id) === undefined);
  if (missing.length > 0) {
    throw new GraphFault(404, { message: `(#803) Some of the aliases you requested do not exist: ${missing.join(",")}`, type: "OAuthException", code: 803 });
  }
  return Object.fromEntries(ids.map((id) => [id, narrow(state.view(id) ?? {})]));
}
