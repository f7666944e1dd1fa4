import { AUDIENCE_USERS_MAX_ROWS, RESTRICTED_OPERATION_CODE, RESTRICTED_UPLOAD_SUBCODE } from "../audiences";
import { type GraphFault, invalidParameter, parameterCheck, unsupportedRequest } from "./graph-faults";
import { SIM_RESTRICTED_AUDIENCE } from "./markers";
import type { SimAudience, SimulatorState } from "./state";
import { required, type Params } from "./validation";

/**
 * Custom audiences in the simulator: customer-file audiences (`subtype=CUSTOM`) filled through
 * `POST`/`DELETE /{id}/users` in sessions, lookalikes (`subtype=LOOKALIKE`) that populate for
 * `lookalikeBuildMs` of simulated time, approximate counts, updates and deletes.
 *
 * Members are kept as a 52-bit fingerprint of a row's first hash, never the row: enough to count adds and
 * removes exactly for any realistic upload, and small (a number per member).
 */

/** Keys Graph's multi-key schema accepts; all but EXTERN_ID travel as SHA-256 hex. */
const SCHEMA_KEYS = new Set([
  "EMAIL",
  "PHONE",
  "FN",
  "LN",
  "CT",
  "ST",
  "ZIP",
  "COUNTRY",
  "DOBY",
  "DOBM",
  "DOBD",
  "GEN",
  "MADID",
  "EXTERN_ID",
  "FI",
  "F5FIRST",
  "F5LAST",
]);
const HASH = /^[0-9a-f]{64}$/;
/** A seed smaller than this cannot give a lookalike, and a customer-file audience this small cannot deliver. */
const MIN_AUDIENCE_SIZE = 100;
/** People on the platform per country, for lookalike sizes (ratio × reach). */
const COUNTRY_REACH: Record<string, number> = { DE: 38_000_000, AT: 5_400_000, CH: 4_900_000 };
const FILE_SOURCES = new Set(["USER_PROVIDED_ONLY", "PARTNER_PROVIDED_ONLY", "BOTH_USER_AND_PARTNER_PROVIDED"]);

function json(params: Params, name: string): unknown {
  const raw = required(params, name);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw parameterCheck(`Param ${name} must be a JSON encoded object`, name);
  }
}

function restrictedUpload(): GraphFault {
  return invalidParameter({
    title: "Audience Upload Blocked",
    message:
      "Before updating user memberships, you must resolve integrity restrictions on this Data File Custom Audience. Go to Audience Manager to appeal the restrictions or create a new audience with updated data",
    subcode: RESTRICTED_UPLOAD_SUBCODE,
  });
}

export function createSimAudiences(state: SimulatorState, options: { lookalikeBuildMs: number }) {
  const audiences = state.audiences;

  function create(accountId: string, params: Params): { id: string } {
    const name = required(params, "name");
    const subtype = required(params, "subtype");
    const now = state.now();
    const base = {
      id: state.newId(),
      accountId,
      name,
      description: params.description ?? "",
      members: new Set<number>(),
      sessions: new Map(),
      createdMs: now,
      updatedMs: now,
    };
    if (subtype === "CUSTOM") {
      const source = required(params, "customer_file_source");
      if (!FILE_SOURCES.has(source))
        throw parameterCheck(
          "Param customer_file_source must be one of {USER_PROVIDED_ONLY, PARTNER_PROVIDED_ONLY, BOTH_USER_AND_PARTNER_PROVIDED}",
          "customer_file_source",
        );
      audiences.set(base.id, { ...base, subtype, customerFileSource: source, restricted: name.includes(SIM_RESTRICTED_AUDIENCE) });
      return { id: base.id };
    }
    if (subtype === "LOOKALIKE") {
      const originId = required(params, "origin_audience_id");
      const origin = audiences.get(originId);
      if (!origin || origin.accountId !== accountId || origin.subtype !== "CUSTOM") {
        throw invalidParameter({
          title: "Invalid Source Audience",
          message: "The source audience must be a custom audience of this ad account.",
          field: ["origin_audience_id"],
        });
      }
      const spec = json(params, "lookalike_spec") as { country?: unknown; ratio?: unknown };
      const country = typeof spec.country === "string" ? spec.country.toUpperCase() : "";
      const ratio = typeof spec.ratio === "number" ? spec.ratio : Number.NaN;
      if (!/^[A-Z]{2}$/.test(country))
        throw invalidParameter({
          title: "Invalid Lookalike Location",
          message: "lookalike_spec.country must be a two-letter country code.",
          field: ["lookalike_spec", "country"],
        });
      if (!(ratio >= 0.01 && ratio <= 0.2))
        throw invalidParameter({
          title: "Invalid Lookalike Size",
          message: "lookalike_spec.ratio must be between 0.01 and 0.20.",
          field: ["lookalike_spec", "ratio"],
        });
      if (origin.members.size < MIN_AUDIENCE_SIZE) {
        throw invalidParameter({
          title: "Source Audience Too Small",
          message: `The source audience must contain at least ${MIN_AUDIENCE_SIZE} people from one country to create a lookalike audience.`,
          field: ["origin_audience_id"],
        });
      }
      audiences.set(base.id, { ...base, subtype, restricted: false, lookalike: { originId, country, ratio, readyAtMs: now + options.lookalikeBuildMs } });
      return { id: base.id };
    }
    throw parameterCheck("Param subtype must be one of {CUSTOM, LOOKALIKE, …}; the simulator creates these two", "subtype");
  }

  function view(audience: SimAudience): Record<string, unknown> {
    const now = state.now();
    let lower = audience.members.size;
    let operation = { code: 200, description: "Normal" };
    let delivery =
      lower >= MIN_AUDIENCE_SIZE
        ? { code: 200, description: "This audience is ready for use." }
        : { code: 300, description: "This audience is too small to deliver ads." };
    if (audience.lookalike) {
      if (now < audience.lookalike.readyAtMs) {
        lower = -1;
        operation = { code: 441, description: "We're finding people who are similar to your source audience. Your audience will be ready soon." };
        delivery = { code: 300, description: "This audience is being created." };
      } else {
        lower = Math.round((COUNTRY_REACH[audience.lookalike.country] ?? 1_000_000) * audience.lookalike.ratio);
        delivery = { code: 200, description: "This audience is ready for use." };
      }
    }
    if (audience.restricted)
      operation = { code: RESTRICTED_OPERATION_CODE, description: "This audience is restricted: resolve the integrity restrictions in Audience Manager." };
    return {
      id: audience.id,
      account_id: audience.accountId,
      name: audience.name,
      description: audience.description,
      subtype: audience.subtype,
      customer_file_source: audience.customerFileSource,
      approximate_count_lower_bound: lower,
      approximate_count_upper_bound: lower < 0 ? -1 : Math.round(lower * 1.15),
      operation_status: operation,
      delivery_status: delivery,
      lookalike_spec: audience.lookalike && {
        country: audience.lookalike.country,
        ratio: audience.lookalike.ratio,
        origin: [{ id: audience.lookalike.originId }],
      },
      time_created: Math.floor(audience.createdMs / 1000),
      time_updated: Math.floor(audience.updatedMs / 1000),
    };
  }

  /** `POST`/`DELETE /{id}/users`: one batch of a session, counted row by row like the platform reports it. */
  function users(audience: SimAudience, operation: "add" | "remove", params: Params) {
    if (audience.subtype !== "CUSTOM") throw parameterCheck("Users can only be added to or removed from a customer-file custom audience");
    if (audience.restricted) throw restrictedUpload();
    const payload = json(params, "payload") as { schema?: unknown; data?: unknown };
    const schema = typeof payload.schema === "string" ? [payload.schema] : payload.schema;
    if (!Array.isArray(schema) || schema.length === 0 || !schema.every((key) => typeof key === "string" && SCHEMA_KEYS.has(key))) {
      throw parameterCheck("Param payload[schema] must be a match key or an array of match keys (EMAIL, PHONE, FN, LN, …)", "payload");
    }
    if (!Array.isArray(payload.data)) throw parameterCheck("Param payload[data] must be an array", "payload");
    if (payload.data.length > AUDIENCE_USERS_MAX_ROWS)
      throw parameterCheck(`Too many users in the payload: at most ${AUDIENCE_USERS_MAX_ROWS} per request`, "payload");

    const session = params.session === undefined ? undefined : (json(params, "session") as Record<string, unknown>);
    let sessionId = String(Math.floor(state.now() * 1000 + Math.random() * 1000));
    let retry = false;
    if (session) {
      const id = session.session_id;
      const seq = session.batch_seq;
      if (typeof id !== "number" && !(typeof id === "string" && /^\d+$/.test(id)))
        throw parameterCheck("Param session[session_id] must be an integer", "session");
      if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 1) throw parameterCheck("Param session[batch_seq] must be a positive integer", "session");
      sessionId = String(id);
      const known = audience.sessions.get(sessionId) ?? { lastSeq: 0, closed: false };
      if (known.closed && seq > known.lastSeq) throw parameterCheck("This session has already received its last batch; start a new session", "session");
      // A batch sent again (its answer was lost) changes nothing twice.
      retry = seq <= known.lastSeq;
      known.lastSeq = Math.max(known.lastSeq, seq);
      if (session.last_batch_flag === true) known.closed = true;
      audience.sessions.set(sessionId, known);
    }

    let invalid = 0;
    const samples: Record<string, string> = {};
    payload.data.forEach((row: unknown, index: number) => {
      const cells = Array.isArray(row) ? row : typeof row === "string" && schema.length === 1 ? [row] : undefined;
      let problem: string | undefined;
      if (!cells || cells.length !== schema.length) problem = `row has ${Array.isArray(cells) ? cells.length : 0} values for ${schema.length} schema keys`;
      else if (cells.every((cell) => cell === "")) problem = "row has no values";
      else if (cells.some((cell, i) => typeof cell !== "string" || (cell !== "" && schema[i] !== "EXTERN_ID" && !HASH.test(cell))))
        problem = "value is not a SHA-256 hash (64 lower-case hex characters)";
      if (problem) {
        invalid += 1;
        if (Object.keys(samples).length < 10) samples[String(index)] = problem;
        return;
      }
      if (retry) return;
      const first = (cells as string[]).find((cell) => cell !== "") ?? "";
      const fingerprint = Number.parseInt(first.slice(0, 13), 16);
      if (operation === "add") audience.members.add(fingerprint);
      else audience.members.delete(fingerprint);
    });
    audience.updatedMs = state.now();
    return { audience_id: audience.id, session_id: sessionId, num_received: payload.data.length, num_invalid_entries: invalid, invalid_entry_samples: samples };
  }

  /** Requests on an audience's own id; `undefined` when the id is no audience (the caller goes on). */
  function object(method: string, id: string, edge: string | undefined, params: Params, select: (view: Record<string, unknown>) => unknown): unknown {
    const audience = audiences.get(id);
    if (!audience) return undefined;
    if (edge === "users" && (method === "POST" || method === "DELETE")) return users(audience, method === "POST" ? "add" : "remove", params);
    if (edge) throw parameterCheck(`Tried accessing nonexisting field (${edge}) on node type (CustomAudience)`);
    if (method === "GET") return select(view(audience));
    if (method === "DELETE") {
      audiences.delete(id);
      return { success: true };
    }
    if (method === "POST") {
      const other = Object.keys(params).find((key) => key !== "name" && key !== "description");
      if (other) throw parameterCheck(`Param ${other} can't be changed on a custom audience here; the simulator updates name and description`, other);
      if (params.name !== undefined) audience.name = params.name;
      if (params.description !== undefined) audience.description = params.description;
      audience.updatedMs = state.now();
      return { success: true };
    }
    throw unsupportedRequest("post", id);
  }

  return { create, object, view };
}
