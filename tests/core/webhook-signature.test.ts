import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
} from "../../lib/core/webhook-signature";

const secret = "whsec_test_secret";
const body = JSON.stringify({ type: "ad.status_changed", data: { id: "ad_1", status: "ACTIVE" } });
const now = 1_767_000_000;

describe("signWebhook", () => {
  it("produces t=<unix>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'> with the secret as the key", () => {
    const expected = createHmac("sha256", secret).update(`${now}.${body}`).digest("hex");
    expect(signWebhook(secret, body, now)).toBe(`t=${now},v1=${expected}`);
  });

  it("signs bytes and the equivalent string identically", () => {
    expect(signWebhook(secret, Buffer.from(body, "utf8"), now)).toBe(signWebhook(secret, body, now));
  });

  it("emits one v1 per secret during a rotation", () => {
    const header = signWebhook(["whsec_old", "whsec_new"], body, now);
    expect(header.split(",").map((part) => part.split("=")[0])).toEqual(["t", "v1", "v1"]);
    expect(verifyWebhook("whsec_old", body, header, { nowSeconds: now })).toEqual({ ok: true });
    expect(verifyWebhook("whsec_new", body, header, { nowSeconds: now })).toEqual({ ok: true });
  });

  it("uses the documented header names", () => {
    expect([WEBHOOK_SIGNATURE_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_DELIVERY_HEADER]).toEqual(["X-Service-Signature", "X-Service-Event", "X-Service-Delivery"]);
  });
});

describe("verifyWebhook", () => {
  const header = signWebhook(secret, body, now);

  it("accepts its own signature", () => {
    expect(verifyWebhook(secret, body, header, { nowSeconds: now })).toEqual({ ok: true });
  });

  it("rejects a tampered body and a wrong secret", () => {
    expect(verifyWebhook(secret, body.replace("ACTIVE", "PAUSED"), header, { nowSeconds: now })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    expect(verifyWebhook("whsec_other", body, header, { nowSeconds: now })).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("rejects a timestamp moved without re-signing", () => {
    const moved = header.replace(`t=${now}`, `t=${now + 1}`);
    expect(verifyWebhook(secret, body, moved, { nowSeconds: now })).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("enforces the tolerance in both directions, inclusive at the edge", () => {
    expect(verifyWebhook(secret, body, header, { nowSeconds: now + 300 })).toEqual({ ok: true });
    expect(verifyWebhook(secret, body, header, { nowSeconds: now - 300 })).toEqual({ ok: true });
    expect(verifyWebhook(secret, body, header, { nowSeconds: now + 301 })).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(verifyWebhook(secret, body, header, { nowSeconds: now - 301 })).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    expect(verifyWebhook(secret, body, header, { nowSeconds: now + 3600, toleranceSeconds: 7200 })).toEqual({ ok: true });
  });

  it("reports a bad signature before a stale timestamp", () => {
    expect(verifyWebhook("whsec_other", body, header, { nowSeconds: now + 10_000 })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("accepts a header with two v1 values when either matches, and ignores unknown schemes", () => {
    const good = header.split("v1=")[1];
    const bad = "0".repeat(64);
    for (const value of [`t=${now},v1=${bad},v1=${good}`, `t=${now},v1=${good},v1=${bad}`, `t=${now}, v0=abc, v1=${good}`]) {
      expect(verifyWebhook(secret, body, value, { nowSeconds: now }), value).toEqual({ ok: true });
    }
    expect(verifyWebhook(secret, body, `t=${now},v1=${bad},v1=${"1".repeat(64)}`, { nowSeconds: now })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it.each([
    ["", "missing_header"],
    ["   ", "missing_header"],
    [null, "missing_header"],
    [undefined, "missing_header"],
    ["garbage", "malformed_header"],
    [`v1=${"a".repeat(64)}`, "malformed_header"],
    [`t=${now}`, "malformed_header"],
    [`t=abc,v1=${"a".repeat(64)}`, "malformed_header"],
    [`t=-5,v1=${"a".repeat(64)}`, "malformed_header"],
    [`t=${now},t=${now},v1=${"a".repeat(64)}`, "malformed_header"],
    [`t=${now},v1=xyz`, "malformed_header"],
    [`t=${now},v1=${"A".repeat(64)}`, "malformed_header"],
    [`t=${now},=v1`, "malformed_header"],
    // The guide page's "hex HMAC of the body alone" variant has no timestamp and is not accepted.
    [createHmac("sha256", secret).update(body).digest("hex"), "malformed_header"],
  ] as const)("%j -> %s", (value, reason) => {
    expect(verifyWebhook(secret, body, value, { nowSeconds: now })).toEqual({ ok: false, reason });
  });
});

describe("generateWebhookSecret", () => {
  it("returns whsec_ plus 32 random bytes in base64url", () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice("whsec_".length), "base64url")).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe("properties", () => {
  const bodies = fc.oneof(fc.string({ unit: "binary" }), fc.uint8Array({ maxLength: 2048 }));
  const timestamps = fc.integer({ min: 0, max: 10 ** 12 - 1 });

  it("a signature always verifies for the same secret, body and time", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), bodies, timestamps, (key, raw, at) => {
        expect(verifyWebhook(key, raw, signWebhook(key, raw, at), { nowSeconds: at })).toEqual({ ok: true });
      }),
    );
  });

  it("a signature never verifies for a different body", () => {
    fc.assert(
      fc.property(bodies, bodies, timestamps, (signed, received, at) => {
        fc.pre(!Buffer.from(signed).equals(Buffer.from(received)));
        expect(verifyWebhook(secret, received, signWebhook(secret, signed, at), { nowSeconds: at })).toEqual({
          ok: false,
          reason: "signature_mismatch",
        });
      }),
    );
  });
});
