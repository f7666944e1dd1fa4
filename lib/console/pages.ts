import { html } from "hono/html";
import { type AssetVersions, consoleStyle, versionOf } from "./assets";

/** The two server-rendered pages; everything inside the shell's `<main>` is drawn by the console script. */

export function signInPage(input: { error?: string; notice?: string | null; field?: "password" | "token"; email?: string }) {
  const error = input.error ?? null;
  const on = (field: "password" | "token") => (error && (input.field ?? "token") === field ? error : null);
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

export function shellPage(input: { csrfToken: string; role: "owner" | "admin" | "support"; assets: AssetVersions }) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${input.csrfToken}">
<meta name="operator-role" content="${input.role}">
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
