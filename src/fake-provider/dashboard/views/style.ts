/** The dashboard's whole stylesheet, inline (no CDN, works offline); dark mode follows the system. */
export const CSS = `
:root{--bg:#fff;--fg:#1b1f24;--mut:#5b6470;--line:#d8dee4;--card:#f6f8fa;--lost:#cf222e;--delayed:#9a6700;--fault:#bc4c00;--replayed:#0969da;--conflict:#8250df;--error:#a40e26;--ok:#1a7f37;--hi:#fff8c5}
@media (prefers-color-scheme: dark){:root{--bg:#0d1117;--fg:#e6edf3;--mut:#8d96a0;--line:#30363d;--card:#161b22;--lost:#ff7b72;--delayed:#d29922;--fault:#f0883e;--replayed:#58a6ff;--conflict:#bc8cff;--error:#ffa198;--ok:#3fb950;--hi:#3b2e00}}
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
header{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;border-bottom:1px solid var(--line);background:var(--card);position:sticky;top:0;z-index:2;flex-wrap:wrap}
header h1{font-size:1rem;margin:0}nav a{margin-right:.8rem}a{color:var(--replayed)}main{padding:1rem}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
pre{background:var(--card);border:1px solid var(--line);padding:.5rem;overflow:auto;max-height:24rem;white-space:pre-wrap;word-break:break-all}
.row>summary{display:grid;grid-template-columns:4.5rem 7.5rem 8rem minmax(12rem,1.6fr) 4rem minmax(6rem,1fr) minmax(6rem,1fr) 6rem minmax(10rem,1.6fr);gap:.5rem;padding:.2rem .4rem;border-bottom:1px solid var(--line);cursor:pointer;list-style:none}
.row>summary>span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.row>summary>span.why{white-space:normal}.row>summary::-webkit-details-marker{display:none}
.cols{font-weight:600;display:grid;grid-template-columns:4.5rem 7.5rem 8rem minmax(12rem,1.6fr) 4rem minmax(6rem,1fr) minmax(6rem,1fr) 6rem minmax(10rem,1.6fr);gap:.5rem;padding:.2rem .4rem;border-bottom:2px solid var(--line)}
.row[open]>summary,.row:target>summary{background:var(--hi)}.more{padding:.5rem 1rem;border-bottom:1px solid var(--line)}
.tone-lost .why,.tone-lost .st{color:var(--lost);font-weight:600}.tone-delayed .why{color:var(--delayed)}.tone-fault .why{color:var(--fault)}
.tone-replayed .why{color:var(--replayed)}.tone-conflict .why{color:var(--conflict);font-weight:600}.tone-error .st{color:var(--error)}
.badge{display:inline-block;padding:0 .4rem;border-radius:1rem;border:1px solid currentColor;font-size:11px;margin-right:.25rem}
.group{margin:.3rem 0;border:1px solid var(--line);border-radius:4px}.group>summary{padding:.3rem .5rem;background:var(--card);cursor:pointer}
form.filters{display:flex;flex-wrap:wrap;gap:.4rem;align-items:end;margin-bottom:.6rem}form.filters label{display:flex;flex-direction:column;font-size:11px;color:var(--mut)}
input,select,textarea,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.2rem .4rem}
button{cursor:pointer;background:var(--card)}textarea{width:100%;font-family:ui-monospace,monospace;font-size:12px}
.pager{display:flex;gap:1rem;margin:.5rem 0;color:var(--mut)}.live{display:flex;gap:.6rem;align-items:center;margin-left:auto}
#live-state{font-size:12px;color:var(--mut)}#live-state.on{color:var(--ok)}
.spans{display:flex;height:1.2rem;border-radius:3px;overflow:hidden;min-width:20rem;max-width:48rem}.spans>span{font-size:11px;padding:0 .3rem;color:#fff;overflow:hidden;white-space:nowrap;border-right:1px solid var(--bg)}
.s-queued{background:#6e7781}.s-running{background:#0969da}.s-cancelling{background:#9a6700}.s-succeeded{background:#1a7f37}.s-failed{background:#cf222e}.s-cancelled{background:#8250df}.s-expired{background:#57606a}.s-other{background:#bc4c00}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid var(--line);padding:.2rem .5rem;text-align:left;vertical-align:top}
.err{color:var(--lost);white-space:pre-wrap}.okmsg{color:var(--ok)}.muted{color:var(--mut)}section{margin-bottom:1.5rem}
.flag{color:var(--lost);font-weight:600}
`;
