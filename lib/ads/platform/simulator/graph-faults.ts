import type { GraphErrorBody } from "../types";

/**
 * An error the simulator answers with, in Graph's shape. Codes and subcodes follow Meta's error
 * reference where one is documented; where none is (budgets, required parameters), the simulator answers
 * like Graph's parameter checks: code 100, no subcode, a `(#100) …` message and a blamed field.
 */
export class GraphFault extends Error {
  readonly httpStatus: number;
  readonly body: Omit<GraphErrorBody, "fbtrace_id">;
  readonly headers: Record<string, string>;

  constructor(httpStatus: number, body: Omit<GraphErrorBody, "fbtrace_id">, headers: Record<string, string> = {}) {
    super(body.message ?? "Graph error");
    this.httpStatus = httpStatus;
    this.body = body;
    this.headers = headers;
  }
}

type UserFacing = { title: string; message: string; field?: string[]; subcode?: number };

/** Code 100 with the user-facing pair; `error_data` is JSON-encoded as a string, as Graph sends it (G1). */
export function invalidParameter({ title, message, field, subcode }: UserFacing): GraphFault {
  return new GraphFault(400, {
    message: "Invalid parameter",
    type: "OAuthException",
    code: 100,
    ...(subcode !== undefined ? { error_subcode: subcode } : {}),
    is_transient: false,
    error_user_title: title,
    error_user_msg: message,
    ...(field ? { error_data: JSON.stringify({ blame_field_specs: [field] }) } : {}),
  });
}

/** A failed parameter check (`(#100) The parameter name is required`), not meant for end users. */
export function parameterCheck(message: string, field?: string): GraphFault {
  return new GraphFault(400, {
    message: `(#100) ${message}`,
    type: "OAuthException",
    code: 100,
    ...(field ? { error_data: JSON.stringify({ blame_field_specs: [[field]] }) } : {}),
  });
}

/** 100/33: the documented answer for an id that does not exist or is outside the token's reach. */
export function unsupportedRequest(method: "get" | "post", id: string): GraphFault {
  return new GraphFault(400, {
    message: `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    type: "GraphMethodException",
    code: 100,
    error_subcode: 33,
  });
}

export function unknownPath(path: string): GraphFault {
  return new GraphFault(400, { message: `Unknown path components: /${path}`, type: "OAuthException", code: 2500 });
}

export function deprecatedVersion(latest: string): GraphFault {
  return new GraphFault(400, {
    message: `(#2635) You are calling a deprecated version of the Ads API. Please update to the latest version: ${latest}.`,
    type: "OAuthException",
    code: 2635,
  });
}

/** Graph's messages of the access-token subcodes (Meta's "Access Token" error reference, G2). */
const TOKEN_MESSAGES: Record<number, string> = {
  458: "Error validating access token: The user has not authorized application 1234567890.",
  459: "Error validating access token: You cannot access the app till you log in to www.facebook.com and follow the instructions given.",
  460: "Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.",
  463: "Error validating access token: Session has expired.",
  464: "Error validating access token: Sessions for the user are not allowed because the user is not a confirmed user.",
  467: "Error validating access token: The session is invalid because the user logged out.",
};

/** 190 never echoes the token. `WWW-Authenticate` is what Graph adds to OAuth failures. */
export function invalidToken(subcode?: number): GraphFault {
  const message = (subcode !== undefined ? TOKEN_MESSAGES[subcode] : undefined) ?? "Invalid OAuth access token - Cannot parse access token";
  return new GraphFault(
    400,
    { message, type: "OAuthException", code: 190, ...(subcode !== undefined ? { error_subcode: subcode } : {}) },
    { "www-authenticate": `OAuth "Facebook Platform" "invalid_token" "${message}"` },
  );
}

export function missingToken(): GraphFault {
  return new GraphFault(400, { message: "An access token is required to request this resource.", type: "OAuthException", code: 104 });
}

/** Both appsecret_proof failures are code 100 `GraphMethodException` (observed Graph answers). */
export function missingProof(): GraphFault {
  return new GraphFault(400, { message: "API calls from the server require an appsecret_proof argument", type: "GraphMethodException", code: 100 });
}

export function invalidProof(): GraphFault {
  return new GraphFault(400, { message: "Invalid appsecret_proof provided in the API argument", type: "GraphMethodException", code: 100 });
}

export type InjectedFaultSpec = {
  code: number;
  subcode?: number;
  message?: string;
  type?: string;
  httpStatus?: number;
  isTransient?: boolean;
  userTitle?: string;
  userMessage?: string;
  /** Minutes, reported in `X-Business-Use-Case-Usage` like Graph's own estimate. */
  estimatedTimeToRegainAccess?: number;
};

const defaultMessages: Record<number, string> = {
  1: "An unknown error occurred",
  2: "An unexpected error has occurred. Please retry your request later.",
  4: "(#4) Application request limit reached",
  17: "(#17) User request limit reached",
  341: "(#341) Application limit reached",
  32: "(#32) Page request limit reached",
  613: "(#613) Calls to this api have exceeded the rate limit.",
  80000:
    "(#80000) There have been too many calls from this ad-account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting#ads-insights.",
  80003:
    "(#80003) There have been too many calls to this ad-account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting#custom-audience.",
  80004:
    "(#80004) There have been too many calls to this ad-account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting#ads-management.",
};

/** Business Use Case types (Marketing API rate limiting) and the throttling code Graph answers for each. */
const USE_CASE_CODES = { ads_insights: 80000, custom_audience: 80003, ads_management: 80004 } as const;
export type UseCaseType = keyof typeof USE_CASE_CODES;

/**
 * `X-Business-Use-Case-Usage`, which Graph sends with ad-account calls: per business object, the share of
 * the rate-limit budget used (percent) and, once it is spent, the minutes until access comes back. Graph
 * keys it by the business that owns the ad account; the simulator has no business objects and keys it by
 * the ad account id.
 */
export function businessUseCaseUsage(adAccountId: string, percent: number, regainMinutes = 0, type: UseCaseType = "ads_management"): string {
  return JSON.stringify({
    [adAccountId]: [
      {
        type,
        call_count: percent,
        total_cputime: Math.round(percent * 0.34),
        total_time: Math.round(percent * 0.41),
        estimated_time_to_regain_access: regainMinutes,
        ads_api_access_tier: "standard_access",
      },
    ],
  });
}

/** `X-Ad-Account-Usage`: the ad account's share used and the seconds until its budget is whole again. */
export function adAccountUsage(percent: number, resetSeconds = 0): string {
  return JSON.stringify({ acc_id_util_pct: percent, reset_time_duration: resetSeconds, ads_api_access_tier: "standard_access" });
}

/** The refusal of a spent budget: the code of its use case (or the configured one) and both usage headers at 100 %. */
export function throttled(adAccountId: string, options: { code?: number; subcode?: number; type: UseCaseType; regainSeconds: number }): GraphFault {
  const code = options.code ?? USE_CASE_CODES[options.type];
  return new GraphFault(
    400,
    {
      message: defaultMessages[code] ?? `(#${code}) Rate limit reached`,
      type: "OAuthException",
      code,
      ...(options.subcode !== undefined ? { error_subcode: options.subcode } : {}),
      is_transient: true,
    },
    {
      "x-business-use-case-usage": businessUseCaseUsage(adAccountId, 100, Math.max(1, Math.ceil(options.regainSeconds / 60)), options.type),
      "x-ad-account-usage": adAccountUsage(100, Math.ceil(options.regainSeconds)),
    },
  );
}

export function injectedFault(spec: InjectedFaultSpec, adAccountId: string | undefined): GraphFault {
  const rateLimited = [4, 17, 32, 341, 613].includes(spec.code) || (spec.code >= 80000 && spec.code <= 80014);
  const httpStatus = spec.httpStatus ?? (spec.code === 1 ? 500 : spec.code === 2 ? 503 : 400);
  const headers: Record<string, string> = {};
  if (rateLimited && adAccountId) {
    headers["x-business-use-case-usage"] = businessUseCaseUsage(adAccountId, 100, spec.estimatedTimeToRegainAccess ?? 0);
    headers["x-ad-account-usage"] = adAccountUsage(100, (spec.estimatedTimeToRegainAccess ?? 0) * 60);
  }
  return new GraphFault(
    httpStatus,
    {
      message: spec.message ?? defaultMessages[spec.code] ?? `(#${spec.code}) Simulated error`,
      type: spec.type ?? "OAuthException",
      code: spec.code,
      ...(spec.subcode !== undefined ? { error_subcode: spec.subcode } : {}),
      is_transient: spec.isTransient ?? (rateLimited || spec.code === 1 || spec.code === 2),
      ...(spec.userTitle ? { error_user_title: spec.userTitle } : {}),
      ...(spec.userMessage ? { error_user_msg: spec.userMessage } : {}),
    },
    headers,
  );
}
