import type { Hono } from "hono";
import { z } from "zod";
import type { GraphSimulatorControls } from "./controls";

const campaignBody = z.object({
  id: z.string().regex(/^\d+$/).optional(),
  name: z.string().optional(),
  objective: z.string().optional(),
  status: z.enum(["ACTIVE", "PAUSED"]).optional(),
  dailyBudget: z.number().int().positive().optional(),
  lifetimeBudget: z.number().int().positive().optional(),
});

const bodies = {
  failNext: z.object({
    code: z.number().int(),
    subcode: z.number().int().optional(),
    message: z.string().optional(),
    type: z.string().optional(),
    httpStatus: z.number().int().min(400).max(599).optional(),
    isTransient: z.boolean().optional(),
    userTitle: z.string().optional(),
    userMessage: z.string().optional(),
    estimatedTimeToRegainAccess: z.number().min(0).optional(),
    count: z.number().int().min(1).optional(),
    match: z.object({ method: z.string().optional(), path: z.string().optional() }).optional(),
  }),
  ms: z.object({ ms: z.number().min(0) }),
  app: z.object({ appId: z.string().optional(), appSecret: z.string().min(1), accessTokens: z.array(z.string().min(1)).min(1) }),
  adAccount: z.object({
    id: z.string().regex(/^(act_)?\d+$/),
    name: z.string().optional(),
    currency: z.string().optional(),
    timezoneName: z.string().optional(),
    pageIds: z.array(z.string()).optional(),
    campaigns: z.array(campaignBody).optional(),
  }),
  campaign: campaignBody,
  expireToken: z.object({ token: z.string().min(1), subcode: z.number().int().optional() }),
  throttle: z.object({
    account: z.string().regex(/^(act_)?\d+$/),
    limit: z.number().int().min(1).nullable(),
    window_seconds: z.number().min(1).default(3600),
    code: z.number().int().optional(),
    subcode: z.number().int().optional(),
  }),
  subscription: z.object({ url: z.url(), verify_token: z.string().min(1) }),
  reshape: z.object({ omit: z.array(z.string()).optional(), set: z.record(z.string(), z.unknown()).optional() }),
  insightsRows: z.object({ rows: z.array(z.record(z.string(), z.unknown())).min(1) }),
};

/**
 * `/__sim/*`: the simulator's controls over HTTP, for portal developers and tests in other processes.
 * Control requests are local tooling, so a malformed one gets a plain 400, not a Graph error.
 */
export function registerControlRoutes(app: Hono, controls: GraphSimulatorControls): void {
  function post<T extends z.ZodType>(
    path: string,
    schema: T,
    act: (body: z.output<T>, param: (name: string) => string) => Record<string, unknown> | Response | Promise<Record<string, unknown> | Response>,
  ) {
    app.post(`/__sim/${path}`, async (c) => {
      const result = schema.safeParse(await c.req.json().catch(() => undefined));
      if (!result.success) return c.json({ error: "invalid control request", issues: result.error.issues }, 400);
      const outcome = await act(result.data, (name) => c.req.param(name) ?? "");
      return outcome instanceof Response ? outcome : c.json(outcome);
    });
  }

  app.post("/__sim/reset", (c) => {
    controls.reset();
    return c.json({ ok: true });
  });
  post("fail-next", bodies.failNext, (body) => {
    controls.failNext(body);
    return { ok: true };
  });
  post("latency", bodies.ms, (body) => {
    controls.setLatency(body.ms);
    return { ok: true };
  });
  // Answers once the webhooks that became due are answered, so a script can read the effect next.
  post("advance", bodies.ms, async (body) => {
    controls.advance(body.ms);
    await controls.flushWebhooks();
    return { ok: true, now: controls.now().toISOString() };
  });
  post("webhooks/subscribe", bodies.subscription, async (body) => {
    try {
      await controls.subscribeWebhooks({ url: body.url, verifyToken: body.verify_token });
      return { ok: true };
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 400 });
    }
  });
  app.get("/__sim/webhooks", (c) => c.json({ data: controls.webhookDeliveries() }));
  post("apps", bodies.app, (body) => {
    controls.addApp(body);
    return { ok: true };
  });
  post("ad-accounts", bodies.adAccount, (body) => {
    controls.addAdAccount(body);
    return { ok: true };
  });
  post("ad-accounts/:id/campaigns", bodies.campaign, (body, param) => {
    const accountId = param("id").replace(/^act_/, "");
    if (!controls.state.adAccounts.has(accountId)) return Response.json({ error: "unknown ad account" }, { status: 404 });
    return { id: controls.addCampaign(accountId, body) };
  });
  post("expire-token", bodies.expireToken, (body) => {
    controls.expireToken(body.token, body.subcode);
    return { ok: true };
  });

  // A call budget per ad account (`limit: null` removes it); GET reports calls counted and refused.
  post("throttle", bodies.throttle, (body) => {
    controls.throttle(
      body.account,
      body.limit === null ? null : { limit: body.limit, windowMs: body.window_seconds * 1000, code: body.code, subcode: body.subcode },
    );
    return { ok: true };
  });
  // Answer shapes from Graph's docs, for fidelity tests: an object's fields left out or set, extra insights rows.
  post("objects/:id/shape", bodies.reshape, (body, param) => {
    if (!controls.state.view(param("id"))) return Response.json({ error: "unknown object" }, { status: 404 });
    controls.reshape(param("id"), body);
    return { ok: true };
  });
  post("ad-accounts/:id/insights-rows", bodies.insightsRows, (body, param) => {
    controls.addInsightsRows(param("id"), body.rows);
    return { ok: true };
  });
  app.get("/__sim/throttle/:account", (c) => c.json({ data: controls.throttleState(c.req.param("account")) ?? null }));

  app.get("/__sim/requests", (c) => c.json({ data: controls.requests() }));
  app.delete("/__sim/requests", (c) => {
    controls.clearRequests();
    return c.json({ ok: true });
  });
  // Stands in for Graph's temporary CDN URL of an uploaded image.
  app.get("/__sim/images/:hash", (c) => {
    const image = [...controls.state.images.values()].find((entry) => entry.hash === c.req.param("hash"));
    if (!image) return c.notFound();
    return new Response(new Uint8Array(image.bytes), { headers: { "content-type": image.contentType } });
  });
}
