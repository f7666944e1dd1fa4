import { html } from "hono/html";
import { renderSVG } from "uqr";
import { type AssetVersions, consoleStyle, versionOf } from "./assets";

/** The two server-rendered pages; everything inside the shell's `<main>` is drawn by the console script. */

export function signInPage(input: { error?: string; notice?: string | null; field?: "password" | "token"; email?: string; sso?: string | null }) {
  const error = input.error ?? null;
  const on = (field: "password" | "token") => (error && input.field === field ? error : null);
  const passwordError = on("password");
  const tokenError = on("token");
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Operator console</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css?v=${versionOf(consoleStyle())}">
</head>
<body>
<main id="main" class="sign-in">
<h1>Operator console</h1>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ""}
${error && !input.field ? html`<p id="sign-in-error" class="error" role="alert"><span aria-hidden="true">⚠ </span>Error: ${error}</p>` : ""}
${input.sso ? html`<p><a class="button" href="/console/sso/start">Sign in with ${input.sso}</a></p><h2>With e-mail and password</h2>` : ""}
<form method="post" action="/console/sign-in" novalidate>
<div class="field">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" value="${input.email ?? ""}" ${tokenError ? "" : html`autofocus`}>
</div>
<div class="field">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" ${passwordError ? html`aria-invalid="true" aria-describedby="password-error"` : ""}>
${passwordError ? html`<p id="password-error" class="error" role="alert"><span aria-hidden="true">⚠ </span>Error: ${passwordError}</p>` : ""}
</div>
<button type="submit">Sign in</button>
</form>
<h2>Bootstrap or break-glass</h2>
<form method="post" action="/console/sign-in" novalidate>
<div class="field">
<label for="token">Operator token</label>
<input id="token" name="token" type="password" autocomplete="off" ${tokenError ? html`aria-invalid="true" aria-describedby="token-error" autofocus` : ""}>
<p class="hint">The shared <code>ADMIN_TOKEN</code> (with <code>npm start</code>: <code>.data/admin-token</code>), only until the first owner account exists (<code>npm run admin -- operators:create --email … --role owner</code>), or with <code>ADMIN_TOKEN_BREAK_GLASS=true</code>.</p>
${tokenError ? html`<p id="token-error" class="error" role="alert"><span aria-hidden="true">⚠ </span>Error: ${tokenError}</p>` : ""}
</div>
<button type="submit" class="secondary">Sign in with the token</button>
</form>
</main>
</body>
</html>`;
}

const head = (title: string, script = false, refreshTo: string | null = null) => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Operator console</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css?v=${versionOf(consoleStyle())}">
${script ? html`<script type="module" src="/console/app.js"></script>` : ""}
${refreshTo ? html`<meta http-equiv="refresh" content="0;url=${refreshTo}">` : ""}
</head>`;

/** The second step of a password sign-in: a code from the authenticator app, a recovery code, or a passkey. */
export function secondFactorPage(input: { csrf: string; totp: boolean; passkey: boolean; error?: string }) {
  return html`${head("Second factor", true)}
<body>
<main id="main" class="sign-in" data-sign-in-step="second-factor" data-csrf="${input.csrf}">
<h1>Second factor</h1>
${input.error ? html`<p id="factor-error" class="error" role="alert"><span aria-hidden="true">⚠ </span>Error: ${input.error}</p>` : ""}
${input.passkey ? html`<p><button type="button" id="use-passkey">Use a passkey</button></p><p id="passkey-status" role="status"></p>` : ""}
${
  input.totp
    ? html`<form method="post" action="/console/sign-in/second-factor" novalidate>
<input type="hidden" name="csrf" value="${input.csrf}">
<div class="field">
<label for="code">Code from the authenticator app</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" autofocus>
</div>
<button type="submit">Verify</button>
</form>`
    : ""
}
<details>
<summary>Use a recovery code</summary>
<form method="post" action="/console/sign-in/second-factor" novalidate>
<input type="hidden" name="csrf" value="${input.csrf}">
<div class="field">
<label for="recovery_code">Recovery code</label>
<input id="recovery_code" name="recovery_code" type="text" autocomplete="off">
</div>
<button type="submit" class="secondary">Use the recovery code</button>
</form>
</details>
</main>
</body>
</html>`;
}

/** The policy asks for a second factor and the operator has none: set one up before the console opens. */
export function enrolPage(input: { csrf: string; secret: string; uri: string; error?: string }) {
  return html`${head("Set up a second factor", true)}
<body>
<main id="main" class="sign-in" data-sign-in-step="enrol" data-csrf="${input.csrf}">
<h1>Set up a second factor</h1>
<p>This console asks every password account for a second factor. Set one up to continue.</p>
${input.error ? html`<p id="factor-error" class="error" role="alert"><span aria-hidden="true">⚠ </span>Error: ${input.error}</p>` : ""}
<h2>A passkey</h2>
<p><button type="button" id="register-passkey">Register a passkey</button></p>
<p id="passkey-status" role="status"></p>
<h2>An authenticator app</h2>
<p>Scan the QR code with the app or type the secret into it (or open the link on the phone), then type the code it shows.</p>
<p><img src="data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(input.uri))}" alt="QR code of the authenticator app's secret" width="200" height="200" data-testid="totp-qr"></p>
<p class="secret" data-testid="totp-secret">${input.secret}</p>
<p><a href="${input.uri}">Open in the authenticator app</a></p>
<form method="post" action="/console/sign-in/enrol/totp" novalidate>
<input type="hidden" name="csrf" value="${input.csrf}">
<div class="field">
<label for="code">Code from the authenticator app</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6">
</div>
<button type="submit">Confirm and continue</button>
</form>
</main>
</body>
</html>`;
}

/** The recovery codes of a new second factor, shown this once. */
export function recoveryCodesPage(input: { codes: string[] }) {
  return html`${head("Recovery codes")}
<body>
<main id="main" class="sign-in">
<h1>Recovery codes</h1>
<p>Keep these codes somewhere safe: each signs you in once without your second factor. They are shown only now.</p>
<ul data-testid="recovery-codes">${input.codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a href="/console/">Continue to the console</a></p>
</main>
</body>
</html>`;
}

/** Single sign-on done: this page of ours moves on, so the next request is same-site and carries the session cookie. */
export function ssoDonePage() {
  return html`${head("Signed in", false, "/console/")}
<body>
<main id="main" class="sign-in">
<h1>Signed in</h1>
<p><a href="/console/">Continue to the console</a></p>
</main>
</body>
</html>`;
}

export function shellPage(input: {
  csrfToken: string;
  role: "owner" | "admin" | "support";
  sessionKind: "password" | "password+code" | "token";
  assets: AssetVersions;
}) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${input.csrfToken}">
<meta name="operator-role" content="${input.role}">
<meta name="session-kind" content="${input.sessionKind}">
<title>Operator console</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css?v=${input.assets.style}">
<script type="module" src="/console/app.js?v=${input.assets.script}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand">Operator console</p>
<nav aria-label="Sections">
<ul>
<li><a href="#/overview">Overview</a></li>
<li><a href="#/customers">Customers</a></li>
<li><a href="#/blocks">Block library</a></li>
<li><a href="#/ad-templates">Ad templates</a></li>
<li><a href="#/system">System</a></li>
<li><a href="#/audit-log">Audit log</a></li>
${input.role === "owner" ? html`<li><a href="#/operators">Operators</a></li>` : ""}
<li><a href="#/me">My account</a></li>
</ul>
</nav>
<form method="post" action="/console/sign-out" class="sign-out">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit">Sign out</button>
</form>
</header>
<main id="main" tabindex="-1"><p>Loading…</p></main>
</body>
</html>`;
}
