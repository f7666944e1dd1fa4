import { Hono } from "hono";
import { z } from "zod";
import { SimulatorControlError } from "./errors";

/**
 * The parts of Postmark's Account API our service reads (Domains and Sender Signatures APIs, header
 * `X-Postmark-Account-Token`), with the field names of the `postmark` package's `Domain`, `DomainDetails`
 * and `Signature` models. Postmark verifies DKIM and Return-Path by looking the records up in DNS; the
 * simulator has no DNS, so each domain carries whether its records are "published" (set through
 * `PUT /__sim/account/domains`) and the verify endpoints turn that into `DKIMVerified` /
 * `ReturnPathDomainVerified`, as Postmark's DNS check would.
 */

/** The account token every simulator accepts; more can be added with `POST /__sim/account/tokens`. */
export const SIMULATOR_ACCOUNT_TOKEN = "simulator-account-token";

type SimulatorDomain = {
  id: number;
  name: string;
  spfVerified: boolean;
  dkimVerified: boolean;
  returnPathVerified: boolean;
  /** Whether the DKIM TXT record is in (simulated) DNS: what `verifyDKIM` finds. */
  dkimPublished: boolean;
  /** Whether the Return-Path CNAME is in (simulated) DNS: what `verifyReturnPath` finds. */
  returnPathPublished: boolean;
  returnPathDomain: string;
};

type SimulatorSignature = { id: number; email: string; name: string; confirmed: boolean };

const DomainControl = z.object({
  name: z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "a domain name"),
  dkim_published: z.boolean().optional(),
  return_path_published: z.boolean().optional(),
  dkim_verified: z.boolean().optional(),
  return_path_verified: z.boolean().optional(),
  spf_verified: z.boolean().optional(),
});
const SignatureControl = z.object({ email: z.email(), name: z.string().optional(), confirmed: z.boolean().optional() });
const TokenControl = z.object({ token: z.string().min(1) });
const Paging = z.object({ count: z.coerce.number().int().min(1).max(500), offset: z.coerce.number().int().min(0) });

const ACCOUNT_TOKEN_REFUSED = { ErrorCode: 10, Message: "The Account Token provided was invalid or missing." };
const NOT_FOUND_DOMAIN = { ErrorCode: 510, Message: "Domain not found." };
const NOT_FOUND_SIGNATURE = { ErrorCode: 501, Message: "Sender signature not found." };

export class SimulatorAccount {
  #tokens = new Set([SIMULATOR_ACCOUNT_TOKEN]);
  #domains = new Map<number, SimulatorDomain>();
  #signatures = new Map<number, SimulatorSignature>();
  #nextId = 1;

  reset(): void {
    this.#domains.clear();
    this.#signatures.clear();
  }

  addToken(token: string): void {
    this.#tokens.add(token);
  }

  accepts(token: string | undefined): boolean {
    return token !== undefined && this.#tokens.has(token);
  }

  setDomain(input: z.infer<typeof DomainControl>): SimulatorDomain {
    const name = input.name.toLowerCase();
    const existing = [...this.#domains.values()].find((d) => d.name === name);
    const domain: SimulatorDomain = existing ?? {
      id: this.#nextId++,
      name,
      spfVerified: true,
      dkimVerified: false,
      returnPathVerified: false,
      dkimPublished: false,
      returnPathPublished: false,
      returnPathDomain: `pm-bounces.${name}`,
    };
    if (input.dkim_published !== undefined) domain.dkimPublished = input.dkim_published;
    if (input.return_path_published !== undefined) domain.returnPathPublished = input.return_path_published;
    if (input.dkim_verified !== undefined) domain.dkimVerified = input.dkim_verified;
    if (input.return_path_verified !== undefined) domain.returnPathVerified = input.return_path_verified;
    if (input.spf_verified !== undefined) domain.spfVerified = input.spf_verified;
    this.#domains.set(domain.id, domain);
    return domain;
  }

  setSignature(input: z.infer<typeof SignatureControl>): SimulatorSignature {
    const email = input.email.toLowerCase();
    const existing = [...this.#signatures.values()].find((s) => s.email === email);
    const signature = existing ?? { id: this.#nextId++, email, name: input.name ?? email, confirmed: false };
    if (input.name !== undefined) signature.name = input.name;
    if (input.confirmed !== undefined) signature.confirmed = input.confirmed;
    this.#signatures.set(signature.id, signature);
    return signature;
  }

  domains(): SimulatorDomain[] {
    return [...this.#domains.values()];
  }

  domain(id: number): SimulatorDomain | undefined {
    return this.#domains.get(id);
  }

  signatures(): SimulatorSignature[] {
    return [...this.#signatures.values()];
  }
}

function domainSummary(d: SimulatorDomain) {
  return { ID: d.id, Name: d.name, SPFVerified: d.spfVerified, DKIMVerified: d.dkimVerified, WeakDKIM: false, ReturnPathDomainVerified: d.returnPathVerified };
}

/** `DomainDetails`: while DKIM is pending the record to publish is in `DKIMPendingHost`/`DKIMPendingTextValue`. */
function domainDetails(d: SimulatorDomain) {
  const host = `20260101000000pm._domainkey.${d.name}`;
  const value = `k=rsa;p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ${d.id.toString(16).padStart(4, "0")}simulated`;
  return {
    ...domainSummary(d),
    SPFHost: d.name,
    SPFTextValue: "v=spf1 a mx include:spf.mtasv.net ~all",
    DKIMHost: d.dkimVerified ? host : "",
    DKIMTextValue: d.dkimVerified ? value : "",
    DKIMPendingHost: d.dkimVerified ? "" : host,
    DKIMPendingTextValue: d.dkimVerified ? "" : value,
    DKIMRevokedHost: "",
    DKIMRevokedTextValue: "",
    SafeToRemoveRevokedKeyFromDNS: false,
    DKIMUpdateStatus: d.dkimVerified ? "Verified" : "Pending",
    ReturnPathDomain: d.returnPathDomain,
    ReturnPathDomainCNAMEValue: "pm.mtasv.net",
  };
}

function signatureSummary(s: SimulatorSignature) {
  const domain = s.email.slice(s.email.lastIndexOf("@") + 1);
  return { ID: s.id, Name: s.name, Domain: domain, EmailAddress: s.email, ReplyToEmailAddress: "", Confirmed: s.confirmed };
}

async function controlBody<T extends z.ZodType>(text: string, schema: T): Promise<z.infer<T>> {
  let value: unknown;
  try {
    value = JSON.parse(text || "{}");
  } catch {
    throw new SimulatorControlError(422, "The body is not valid JSON.");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new SimulatorControlError(422, z.prettifyError(parsed.error));
  return parsed.data;
}

/** The Account API routes and their `/__sim/account/*` controls, mounted on the simulator's app. */
export function accountRoutes(account: SimulatorAccount): Hono {
  const app = new Hono();
  const api = new Hono();
  for (const path of ["/domains", "/domains/*", "/senders", "/senders/*"]) {
    api.use(path, async (c, next) => {
      if (!account.accepts(c.req.header("x-postmark-account-token"))) return c.json(ACCOUNT_TOKEN_REFUSED, 401);
      await next();
    });
  }
  const paging = (query: Record<string, string>) => {
    const parsed = Paging.safeParse(query);
    return parsed.success ? parsed.data : null;
  };
  api.get("/domains", (c) => {
    const page = paging(c.req.query());
    if (!page) return c.json({ ErrorCode: 402, Message: "Count and offset are required (count 1-500)." }, 422);
    const all = account.domains();
    return c.json({ TotalCount: all.length, Domains: all.slice(page.offset, page.offset + page.count).map(domainSummary) });
  });
  api.get("/domains/:id", (c) => {
    const domain = account.domain(Number(c.req.param("id")));
    return domain ? c.json(domainDetails(domain)) : c.json(NOT_FOUND_DOMAIN, 422);
  });
  api.put("/domains/:id/verifyDKIM", (c) => {
    const domain = account.domain(Number(c.req.param("id")));
    if (!domain) return c.json(NOT_FOUND_DOMAIN, 422);
    domain.dkimVerified = domain.dkimPublished;
    return c.json(domainDetails(domain));
  });
  api.put("/domains/:id/verifyReturnPath", (c) => {
    const domain = account.domain(Number(c.req.param("id")));
    if (!domain) return c.json(NOT_FOUND_DOMAIN, 422);
    domain.returnPathVerified = domain.returnPathPublished;
    return c.json(domainDetails(domain));
  });
  api.get("/senders", (c) => {
    const page = paging(c.req.query());
    if (!page) return c.json({ ErrorCode: 402, Message: "Count and offset are required (count 1-500)." }, 422);
    const all = account.signatures();
    return c.json({ TotalCount: all.length, SenderSignatures: all.slice(page.offset, page.offset + page.count).map(signatureSummary) });
  });
  api.get("/senders/:id", (c) => {
    const signature = account.signatures().find((s) => s.id === Number(c.req.param("id")));
    return signature ? c.json(signatureSummary(signature)) : c.json(NOT_FOUND_SIGNATURE, 422);
  });

  app.put("/__sim/account/domains", async (c) => c.json(domainDetails(account.setDomain(await controlBody(await c.req.text(), DomainControl)))));
  app.put("/__sim/account/senders", async (c) => c.json(signatureSummary(account.setSignature(await controlBody(await c.req.text(), SignatureControl)))));
  app.post("/__sim/account/tokens", async (c) => {
    const { token } = await controlBody(await c.req.text(), TokenControl);
    account.addToken(token);
    return c.json({ added: true });
  });
  app.route("/", api);
  return app;
}
