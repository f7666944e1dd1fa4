import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import {
  ACCEPTED_UPLOAD_CONTENT_TYPES,
  localUploadUrlSigner,
  MAX_UPLOAD_BYTES,
  signUpload,
  UPLOAD_TOKEN_PARAM,
  newUploadPathname,
  assetIdOfUploadPathname,
  verifyUpload,
  type UploadGrant,
  type UploadRejection,
} from "../../lib/mail/assets/upload-signature";

const SECRET = "upload-secret-for-tests-0123456789";
const assetId = "5b0e7c38-9a4e-4d8e-a0a1-2f4bb0f3c9d1";
const clock = new ManualClock("2026-03-01T12:00:00.000Z");
const grant: UploadGrant = {
  assetId,
  customerId: "c6f1d7a2-1111-4b7e-9a55-0c1d2e3f4a5b",
  pathname: newUploadPathname(assetId),
  contentType: "image/png",
  maxBytes: MAX_UPLOAD_BYTES,
  expiresAt: new Date("2026-03-01T12:15:00.000Z"),
};
const request = { assetId, contentType: "image/png", contentLength: 1234 };

function rejected(reason: UploadRejection) {
  return { ok: false, reason };
}

describe("signed upload tokens", () => {
  test("a fresh token verifies and returns the grant it was issued for", () => {
    expect(verifyUpload(signUpload(grant, SECRET), request, SECRET, clock)).toEqual({ ok: true, grant });
  });

  test("the grant is bound to one asset, one content type and a size cap", () => {
    const token = signUpload(grant, SECRET);
    expect(verifyUpload(token, { ...request, assetId: "another-asset" }, SECRET, clock)).toEqual(rejected("asset_mismatch"));
    expect(verifyUpload(token, { ...request, contentType: "image/jpeg" }, SECRET, clock)).toEqual(rejected("content_type_mismatch"));
    expect(verifyUpload(token, { ...request, contentType: "text/html" }, SECRET, clock)).toEqual(rejected("content_type_mismatch"));
    expect(verifyUpload(token, { ...request, contentType: null }, SECRET, clock)).toEqual(rejected("content_type_mismatch"));
    expect(verifyUpload(token, { ...request, contentLength: MAX_UPLOAD_BYTES + 1 }, SECRET, clock)).toEqual(rejected("too_large"));
  });

  test("content type parameters and case do not matter; a missing Content-Length is left to the route", () => {
    const token = signUpload(grant, SECRET);
    expect(verifyUpload(token, { ...request, contentType: "Image/PNG; charset=binary" }, SECRET, clock).ok).toBe(true);
    expect(verifyUpload(token, { assetId, contentType: "image/png" }, SECRET, clock).ok).toBe(true);
  });

  test("expires at expiresAt, judged by the injected clock", () => {
    const token = signUpload(grant, SECRET);
    const late = new ManualClock("2026-03-01T12:14:59.999Z");
    expect(verifyUpload(token, request, SECRET, late).ok).toBe(true);
    late.advance(1);
    expect(verifyUpload(token, request, SECRET, late)).toEqual(rejected("expired"));
  });

  test("a token signed with another secret is a bad signature, never 'expired'", () => {
    const expiredElsewhere = signUpload({ ...grant, expiresAt: new Date("2020-01-01T00:00:00Z") }, "another-secret-of-the-same-length");
    expect(verifyUpload(expiredElsewhere, request, SECRET, clock)).toEqual(rejected("bad_signature"));
  });

  test("a tampered grant fails: widening the size cap or switching the asset", () => {
    const token = signUpload(grant, SECRET);
    const [payload, mac] = token.split(".");
    const decoded = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
    for (const change of [{ max: 10 * MAX_UPLOAD_BYTES }, { asset: "another-asset" }, { exp: Date.parse("2030-01-01") }, { type: "image/gif" }]) {
      const forged = `${Buffer.from(JSON.stringify({ ...decoded, ...change })).toString("base64url")}.${mac}`;
      expect(verifyUpload(forged, request, SECRET, clock)).toEqual(rejected("bad_signature"));
    }
  });

  test.each([
    ["missing", undefined],
    ["empty", ""],
    ["without a signature", "eyJ2IjoxfQ"],
    ["with extra parts", "a.b.c"],
  ])("a %s token is malformed", (_name, token) => {
    expect(verifyUpload(token, request, SECRET, clock)).toEqual(rejected("malformed"));
  });

  test("property: every grant round-trips and any one-character change to its token is refused", () => {
    const grants = fc.record({
      assetId: fc.uuid(),
      customerId: fc.option(fc.uuid(), { nil: undefined }),
      contentType: fc.constantFrom(...ACCEPTED_UPLOAD_CONTENT_TYPES),
      maxBytes: fc.integer({ min: 1, max: MAX_UPLOAD_BYTES }),
      expiresInMs: fc.integer({ min: 1, max: 7 * 24 * 3600 * 1000 }),
    });
    fc.assert(
      fc.property(grants, fc.nat(), fc.integer({ min: 1, max: 63 }), (g, position, flip) => {
        const issued: UploadGrant = {
          assetId: g.assetId,
          ...(g.customerId === undefined ? {} : { customerId: g.customerId }),
          pathname: newUploadPathname(g.assetId),
          contentType: g.contentType,
          maxBytes: g.maxBytes,
          expiresAt: new Date(clock.now().getTime() + g.expiresInMs),
        };
        const token = signUpload(issued, SECRET);
        const put = { assetId: g.assetId, contentType: g.contentType, contentLength: g.maxBytes };
        expect(verifyUpload(token, put, SECRET, clock)).toEqual({ ok: true, grant: issued });

        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        const at = position % token.length;
        const original = token.charAt(at);
        if (original === ".") return;
        const replacement = alphabet.charAt((alphabet.indexOf(original) + flip) % alphabet.length);
        const mutated = `${token.slice(0, at)}${replacement}${token.slice(at + 1)}`;
        // The last base64url character of a 32-byte MAC carries 2 padding bits, so some flips decode to the
        // same bytes; those are the same token, every other change must fail.
        const tail = token.slice(token.lastIndexOf(".") + 1);
        const sameBytes = Buffer.from(mutated.slice(mutated.lastIndexOf(".") + 1), "base64url").equals(Buffer.from(tail, "base64url"));
        if (at > token.lastIndexOf(".") && sameBytes) return;
        expect(verifyUpload(mutated, put, SECRET, clock).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  test("signing refuses a size cap above the 20 MB upload limit", () => {
    expect(() => signUpload({ ...grant, maxBytes: MAX_UPLOAD_BYTES + 1 }, SECRET)).toThrow(RangeError);
  });

  test("an empty or short secret is a configuration error, not a weak signature", () => {
    expect(() => signUpload(grant, "")).toThrow(/at least 16 characters/);
    expect(() => verifyUpload(signUpload(grant, SECRET), request, "short", clock)).toThrow(/at least 16 characters/);
  });
});

describe("raw upload pathnames", () => {
  test("carry the asset id and 128 random bits, a fresh name for every announcement", () => {
    const names = Array.from({ length: 50 }, () => newUploadPathname(assetId));
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(new RegExp(`^uploads/${assetId}-[0-9a-f]{32}$`));
  });

  test("name their asset back, also in the unsuffixed form of uploads announced before the suffix; anything else names none", () => {
    expect(assetIdOfUploadPathname(newUploadPathname(assetId))).toBe(assetId);
    expect(assetIdOfUploadPathname(`uploads/${assetId}`)).toBe(assetId);
    for (const other of [`assets/${assetId}-${"0".repeat(32)}`, `uploads/${assetId}-short`, "uploads/someone-else", `uploads/${assetId}/x`, "uploads/"]) {
      expect(assetIdOfUploadPathname(other), other).toBeNull();
    }
  });
});

describe("local upload URLs", () => {
  const sign = localUploadUrlSigner({ uploadsBaseUrl: "http://localhost:3000/mail/v1/uploads/", secret: SECRET });

  test("point at the app's upload route with the token as the only query parameter", () => {
    const url = new URL(sign({ ...grant, contentType: "image/png" }));
    expect(`${url.origin}${url.pathname}`).toBe(`http://localhost:3000/mail/v1/uploads/${assetId}`);
    expect([...url.searchParams.keys()]).toEqual([UPLOAD_TOKEN_PARAM]);
    expect(verifyUpload(url.searchParams.get(UPLOAD_TOKEN_PARAM), request, SECRET, clock)).toEqual({ ok: true, grant });
  });

  test("refuse content types we do not accept", () => {
    expect(() => sign({ ...grant, contentType: "image/svg+xml" })).toThrow(RangeError);
  });
});
