/** The report's stylesheet: inline, no fonts or images fetched; dark mode follows the system. */
export const REPORT_CSS = `
:root{--bg:#fff;--fg:#1b1f24;--mut:#5b6470;--line:#d8dee4;--card:#f6f8fa;--bad:#cf222e;--good:#1a7f37;--link:#0969da}
@media (prefers-color-scheme: dark){:root{--bg:#0d1117;--fg:#e6edf3;--mut:#8d96a0;--line:#30363d;--card:#161b22;--bad:#ff7b72;--good:#3fb950;--link:#58a6ff}}
body{margin:0 auto;max-width:1400px;padding:1rem 1.5rem;font:14px/1.45 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--link)}h1{margin:.2rem 0}.verdict{font-size:1.4rem;font-weight:700}.pass{color:var(--good)}.fail{color:var(--bad)}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:var(--card)}.matrix td{text-align:center;min-width:2rem}.matrix td.name{text-align:left}
.c-broken{background:color-mix(in srgb,var(--bad) 22%,transparent);font-weight:700}.c-held{color:var(--good)}.c-not_applicable{color:var(--mut)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}pre{background:var(--card);border:1px solid var(--line);padding:.5rem;overflow:auto;white-space:pre-wrap}
.run{border:1px solid var(--line);border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.run>summary{cursor:pointer;font-weight:600}
.diagram{overflow:auto;border:1px solid var(--line);background:var(--card);max-height:80vh}
svg.seq{font:11px ui-monospace,monospace;color:var(--fg)}svg.seq .lifeline{stroke:var(--mut);stroke-dasharray:2 4}svg.seq .lane-label{font-weight:700;fill:var(--fg)}
svg.seq line.request,svg.seq line.answer,svg.seq line.webhook{stroke:var(--fg);stroke-width:1.2}svg.seq line.cited{stroke:var(--bad);stroke-width:2.2}
svg.seq .lbl{fill:var(--fg)}svg.seq .lbl.lost{fill:var(--bad);font-weight:700}svg.seq .cross{stroke:var(--bad);stroke-width:3}svg.seq .note{fill:var(--mut)}
svg.seq g.entry:target line{stroke:var(--link);stroke-width:3}svg.seq marker path{fill:var(--fg)}
ol.arg li{margin:.2rem 0}.k{color:var(--mut);display:inline-block;min-width:11rem}.legend span{margin-right:1rem}
`;
