/** The console's one style sheet (served compressed by lib/console/app.ts). */
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

.top .search { display: flex; gap: 6px; }
.top .search input { width: 16em; padding: 4px 8px; border: 1px solid #6b7480; border-radius: 4px; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; margin: 8px 0; }
.tile { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.tile p { margin: 0; } .tile-label { color: var(--muted); } .tile-figure { font-size: 1.8rem; font-weight: 700; }
.tabs-row { display: flex; flex-wrap: wrap; gap: 12px; align-items: baseline; }
details.filters { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 4px 12px; margin: 0 0 8px; }
details.filters summary { cursor: pointer; font-weight: 600; }
details.filters .field { margin: 4px 0; }
details.delivery { background: #fff; border: 1px solid var(--line); border-radius: 4px; margin: 4px 0; padding: 4px 10px; }
details.delivery summary { display: flex; flex-wrap: wrap; gap: 16px; cursor: pointer; }
details.delivery .state.failed { color: var(--bad); font-weight: 600; } details.delivery .state.delivered { color: var(--good); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; } dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
pre.body { background: var(--bg); border: 1px solid var(--line); padding: 6px 8px; white-space: pre-wrap; word-break: break-all; max-height: 24em; overflow: auto; font-size: 13px; }
.role-note { font-style: italic; }
code.dns-value { word-break: break-all; } .warning { color: var(--warn); font-weight: 600; }
@media (max-width: 720px) {
  .top { flex-wrap: wrap; gap: 8px; padding: 8px 12px; }
  .top nav { order: 3; width: 100%; }
  .top nav ul { flex-wrap: wrap; gap: 4px 12px; }
  .top .search { order: 4; width: 100%; } .top .search input { flex: 1; width: auto; min-width: 0; }
  main { padding: 12px; }
  table { display: block; overflow-x: auto; }
  .split { grid-template-columns: minmax(0, 1fr); }
  .ratios { flex-wrap: wrap; }
  progress { width: 100%; }
}
`;
