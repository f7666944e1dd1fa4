import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, type Harness } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";

/*
 * The console's API (`/console/api/*`) and the admin API (`/admin/v1/*`) answer JSON compressed as the client
 * accepts it (brotli first, then gzip) from 1 KB up; smaller answers and clients that accept neither get the
 * bytes as they are. Every JSON answer says `Vary: Accept-Encoding`.
 */
let h: Harness;
let support: TestOperator;
let cookie = "";
const ORIGIN = "http://localhost";

async function raw(path: string, headers: Record<string, string>) {
  const response = await h.root.request(`${ORIGIN}${path}`, { headers, redirect: "manual" });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

function decoded(answer: Awaited<ReturnType<typeof raw>>): unknown {
  const encoding = answer.headers.get("content-encoding");
  const bytes = encoding === "br" ? brotliDecompressSync(answer.bytes) : encoding === "gzip" ? gunzipSync(answer.bytes) : answer.bytes;
  return JSON.parse(bytes.toString("utf8"));
}

beforeAll(async () => {
  h = await createHarness();
  support = await makeOperator(h, "support");
  for (let i = 0; i < 4; i++) await h.customer(`Compressed answers ${i}`);
  const signedIn = await h.root.request(`${ORIGIN}/console/sign-in`, {
    method: "POST",
    headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: support.email, password: support.password }).toString(),
    redirect: "manual",
  });
  expect(signedIn.status, await signedIn.text()).toBe(303);
  cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
});
afterAll(async () => h.close());

describe.each([
  { surface: "console API", path: "/console/api/customers?limit=100", small: "/console/api/me", auth: () => ({ cookie }) },
  { surface: "admin API", path: "/admin/v1/customers?limit=100", small: "/admin/v1/me", auth: () => ({ authorization: `Bearer ${support.token}` }) },
])("$surface", ({ path, small, auth }) => {
  test("a list answer is brotli for a browser, gzip where brotli is refused, as it is without Accept-Encoding; the same JSON each time", async () => {
    const plain = await raw(path, auth());
    expect(plain.status, plain.bytes.toString()).toBe(200);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toMatch(/Accept-Encoding/i);
    expect(plain.bytes.length).toBeGreaterThan(1024);
    const expected = decoded(plain) as { data: { id: string }[] };

    const br = await raw(path, { ...auth(), "accept-encoding": "gzip, deflate, br, zstd" });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toMatch(/Accept-Encoding/i);
    expect(br.headers.get("content-length")).not.toBe(String(plain.bytes.length));
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 2);

    const gzip = await raw(path, { ...auth(), "accept-encoding": "br;q=0, gzip" });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(gzip.bytes.length).toBeLessThan(plain.bytes.length / 2);

    // Request ids differ; the rest is the same answer.
    const strip = (body: unknown) => ({ ...(body as object), request_id: null });
    expect(strip(decoded(br))).toEqual(strip(expected));
    expect(strip(decoded(gzip))).toEqual(strip(expected));
    expect((await raw(path, { ...auth(), "accept-encoding": "identity" })).headers.get("content-encoding")).toBeNull();
  });

  test("an answer under 1 KB goes as it is", async () => {
    const me = await raw(small, { ...auth(), "accept-encoding": "br, gzip" });
    expect(me.status, me.bytes.toString()).toBe(200);
    expect(me.bytes.length).toBeLessThan(1024);
    expect(me.headers.get("content-encoding")).toBeNull();
    expect(me.headers.get("vary")).toMatch(/Accept-Encoding/i);
    expect(decoded(me)).toMatchObject({ data: { role: "support" } });
  });
});
