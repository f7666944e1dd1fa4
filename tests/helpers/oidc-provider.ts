import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from "jose";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";

/**
 * A real OpenID Connect provider in the test process (`oidc-provider`, the certified Node implementation) on
 * loopback. Its issuer is a pass-through proxy in front of it, so a test can make the provider's token answer
 * carry an ID token with one claim changed and signed again with the provider's own key (what a compromised or
 * misconfigured provider would send): then only the relying party's claim checks stand between it and a
 * session. The interaction (login and consent) is finished at once for the account the test names in `login`;
 * with `interactive`, the provider shows its own development login and consent pages instead (for a browser),
 * the login form's "login" field naming the account.
 */
type TestAccount = { email: string; email_verified?: boolean; groups?: string[] };

export type TestProvider = {
  issuer: string;
  /** Registered with `client_secret_basic` (the OAuth default). */
  clientId: string;
  /** The same application registered with `client_secret_post`: the secret must come in the form body. */
  postClientId: string;
  clientSecret: string;
  /** The account the next authorization logs in as. */
  login: { account: string };
  accounts: Map<string, TestAccount>;
  /** Seconds an authorization code lives. */
  codeTtl: { seconds: number };
  /** Changes the next token answers' ID token claims (signed again with the provider's key); null = untouched. */
  tamper: { claims: ((claims: Record<string, unknown>) => Record<string, unknown>) | null };
  close(): Promise<void>;
};

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));

export async function startTestProvider(input: { redirectUri: string; interactive?: boolean }): Promise<TestProvider> {
  const interactive = input.interactive ?? false;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const accounts = new Map<string, TestAccount>();
  const login = { account: "" };
  const codeTtl = { seconds: 60 };
  const tamper: TestProvider["tamper"] = { claims: null };
  const clientId = "operator-console";
  const postClientId = "operator-console-post";
  const clientSecret = `secret-${crypto.randomUUID()}`;

  const front = createServer();
  const frontPort = await listen(front);
  const issuer = `http://127.0.0.1:${frontPort}`;
  const provider = new Provider(issuer, {
    clients: [
      ...(["client_secret_basic", "client_secret_post"] as const).map((method) => ({
        client_id: method === "client_secret_post" ? postClientId : clientId,
        client_secret: clientSecret,
        redirect_uris: [input.redirectUri],
        response_types: ["code" as const],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: method,
      })),
    ],
    jwks: { keys: [jwk] },
    scopes: ["openid", "email", "profile", "groups", "offline_access"],
    claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { AuthorizationCode: () => codeTtl.seconds },
    features: { devInteractions: { enabled: interactive } },
    ...(interactive ? {} : { interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` } }),
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account
        ? { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: account.email_verified ?? true, groups: account.groups ?? [] }) }
        : undefined;
    },
    // Interactive: no grant until the consent page gives one.
    ...(interactive
      ? {}
      : {
          loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
            const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client?.clientId, accountId: ctx.oidc.session?.accountId });
            grant.addOIDCScope("openid email profile groups");
            grant.addOIDCClaims(["email", "email_verified", "groups"]);
            await grant.save();
            return grant;
          },
        }),
  });
  const callback = provider.callback();
  const back = createServer(async (req, res) => {
    if (!interactive && req.url?.startsWith("/interaction/")) {
      await provider.interactionFinished(req, res, { login: { accountId: login.account } }, { mergeWithLastSubmission: false });
      return;
    }
    callback(req, res);
  });
  const backPort = await listen(back);

  front.on("request", (req, res) => {
    // Uncompressed answers, so the proxy can read the pages it edits.
    const headers = { ...req.headers, "accept-encoding": "identity" };
    const upstream = httpRequest({ host: "127.0.0.1", port: backPort, path: req.url, method: req.method, headers }, (answer) => {
      const change = tamper.claims;
      if (interactive && req.url?.startsWith("/interaction/") && String(answer.headers["content-type"]).startsWith("text/html")) {
        // The development pages' stylesheet imports a web font from Google: dropped, so a browser stays on loopback.
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const page = Buffer.concat(chunks)
            .toString("utf8")
            .replace(/@import url\(https?:[^)]*\);/g, "");
          const headers = { ...answer.headers, "content-length": String(Buffer.byteLength(page)) };
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(page);
        });
        return;
      }
      if (!(change && req.url?.startsWith("/token") && answer.statusCode === 200)) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        const claims = change(decodeJwt(String(body.id_token)));
        body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "test-key", typ: "JWT" }).sign(privateKey);
        const text = JSON.stringify(body);
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      });
    });
    req.pipe(upstream);
  });

  return {
    issuer,
    clientId,
    postClientId,
    clientSecret,
    login,
    accounts,
    codeTtl,
    tamper,
    close: async () => {
      front.closeAllConnections();
      back.closeAllConnections();
      await Promise.all([new Promise((r) => front.close(r)), new Promise((r) => back.close(r))]);
    },
  };
}

/**
 * The browser's part of an authorization at the provider over HTTP: follows its redirects (keeping its cookies)
 * from the authorization URL to the answer sent to our redirect URI, and returns that URL.
 */
export async function authorizeAtProvider(authorizationUrl: string, redirectUri: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(redirectUri)) return url;
    const response = await fetch(url, { redirect: "manual", headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get("location");
    if (!location) throw new Error(`the provider stopped at ${url}: HTTP ${response.status} ${await response.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error("too many redirects at the provider");
}
