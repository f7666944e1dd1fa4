import { html } from "hono/html";

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
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
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
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
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
<p>Add this secret to the app (or open the link on the phone), then type the code it shows.</p>
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

export function shellPage(input: { csrfToken: string; role: "owner" | "admin" | "support"; sessionKind: "password" | "password+code" | "token" }) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${input.csrfToken}">
<meta name="operator-role" content="${input.role}">
<meta name="session-kind" content="${input.sessionKind}">
<title>Operator console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
<script type="module" src="/console/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand">Operator console</p>
<nav aria-label="Sections">
<ul>
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

export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5360; --line: #c5ccd6; --bg: #f6f7f9; --accent: #0b57d0; --bad: #a4161a; --good: #1e6b34; --warn: #7a4b00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #e8a400; outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 10; }
.top { display: flex; align-items: center; gap: 24px; padding: 8px 20px; background: #fff; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; margin: 0; }
.top nav ul { display: flex; gap: 16px; list-style: none; margin: 0; padding: 0; }
.top nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.sign-out { margin-left: auto; }
main { padding: 16px 20px 40px; max-width: 1280px; }
main:focus { outline: none; }
h1 { font-size: 1.5rem; margin: 8px 0 16px; } h2 { font-size: 1.2rem; margin: 24px 0 8px; } h3 { font-size: 1.05rem; margin: 16px 0 8px; }
section.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; margin: 12px 0; }
.field { display: flex; flex-direction: column; gap: 4px; margin: 8px 0; max-width: 560px; }
.field.wide { max-width: none; }
.field.check { flex-direction: row; align-items: center; gap: 8px; }
label { font-weight: 600; }
input, select, textarea, button { font: inherit; color: inherit; }
input[type=text], input[type=password], input[type=number], input[type=search], input[type=email], select, textarea { padding: 6px 8px; border: 1px solid #6b7480; border-radius: 4px; background: #fff; }
textarea { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; min-height: 8em; }
[aria-invalid="true"] { border: 2px solid var(--bad); }
button { padding: 6px 14px; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button:disabled { opacity: .6; cursor: default; }
.row { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-end; }
.hint { color: var(--muted); font-size: .9em; margin: 0; }
.error { color: var(--bad); font-weight: 600; margin: 4px 0; }
.notice { color: var(--good); font-weight: 600; }
.secret { font-family: ui-monospace, monospace; background: #fff8e1; border: 1px dashed var(--warn); padding: 6px 8px; word-break: break-all; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; }
.split { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.ratios { display: flex; gap: 12px; align-items: flex-start; }
.ratios figure { margin: 0; flex: 1 1 0; min-width: 0; max-width: 240px; } .ratios img { width: 100%; height: auto; border: 1px solid var(--line); background: #fff; display: block; }
iframe.preview { width: 100%; min-height: 320px; border: 1px solid var(--line); background: #fff; }
progress { width: 320px; height: 16px; }
.badge { display: inline-block; padding: 0 6px; border: 1px solid currentColor; border-radius: 3px; font-size: .85em; }
.tabs { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0; margin: 0 0 8px; }
.tabs a { display: inline-block; padding: 4px 10px; border: 1px solid var(--line); border-radius: 4px; background: #fff; text-decoration: none; }
.tabs a[aria-current="page"] { border-color: var(--accent); font-weight: 700; text-decoration: underline; }
a.button { display: inline-block; padding: 6px 14px; border-radius: 4px; background: var(--accent); color: #fff; text-decoration: none; }
.sign-in { max-width: 440px; margin: 64px auto; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 16px 24px; }
svg.chart { max-width: 560px; display: block; }
svg.chart text { font-size: 13px; fill: var(--muted); }
fieldset.group { border: 1px solid var(--line); border-radius: 4px; margin: 8px 0; padding: 4px 12px 8px; } fieldset.group legend { font-weight: 600; } fieldset.tokens { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 0 16px; } fieldset.tokens legend { grid-column: 1 / -1; } button.small { padding: 2px 8px; font-size: .9em; } .sticky { position: sticky; top: 8px; align-self: start; } input[type=color] { width: 44px; height: 32px; padding: 0 2px; flex: none; } .inline { display: flex; gap: 8px; align-items: center; } .inline > input:not([type=color]) { flex: 1; min-width: 0; } .rows .fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 0 16px; align-items: start; }
.legend { display: flex; gap: 16px; list-style: none; padding: 0; margin: 4px 0; font-size: .9em; }
`;
