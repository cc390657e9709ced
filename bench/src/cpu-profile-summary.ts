/** A `node --cpu-prof` profile summarised: the top functions by self and by inclusive time, and time per area. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The project's own compiled files (not a dependency's `dist/`). */
const OWN = /\/dist\/(?!.*node_modules)(.*)$/;

function label(n: ProfileNode): string {
  const f = n.callFrame;
  const own = OWN.exec(f.url);
  const file =
    own && !f.url.includes('/node_modules/')
      ? `dist/${own[1]}`
      : f.url.replace(/^.*\/node_modules\//, 'node_modules/').replace(/^node:/, '');
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
}

/**
 * Areas of a schedule's cost, by the project file nearest the sampled frame (a SQLite call or a zod parse is charged
 * to the project code that made it). First match wins.
 */
const AREAS: [string, RegExp][] = [
  ['client store (SQLite)', /reference-client\/store\//],
  ['client (worker, polls, HTTP calls)', /reference-client\//],
  ['provider journal', /fake-provider\/store\/journal|fake-provider\/http\/seam|fake-provider\/journal/],
  ['provider store (jobs, idempotency, settings, webhooks rows)', /fake-provider\/store\/|webhooks\/webhook-repo/],
  ['provider HTTP (Hono app, routes, answers)', /fake-provider\/(http|jobs|profiles|tasks|dialects)\/|fake-provider\/transports\//],
  ['provider engine (life cycle, faults, webhooks)', /fake-provider\//],
  ['judge (checker, invariants)', /conformance\/checker\//],
  ['harness (in-process driver, actions, run state)', /conformance\/runner\//],
  ['fast-check and schedule generation', /conformance\/property-run|scenarios\//],
  ['conformance (other)', /conformance\//],
  ['lib (clock, canonical JSON, ids)', /\/lib\//],
  ['contract (zod schemas)', /contract\//],
];

function ownArea(url: string): string | undefined {
  if (url.includes('/node_modules/') || !OWN.test(url)) return undefined;
  return AREAS.find(([, re]) => re.test(url))?.[0] ?? 'project (other)';
}

/** What the leaf frame itself is: own JavaScript, or a dependency / Node internal working for it. */
function leafKind(url: string, fn: string): string {
  if (url.includes('better-sqlite3') || (!url && /^(run|get|all|iterate|prepare|exec|pragma|close|Database)$/.test(fn))) return 'sqlite';
  if (url.includes('/zod/')) return 'zod';
  if (url.includes('/hono/') || url.includes('@hono')) return 'hono';
  if (url.includes('undici') || url.includes('webstreams') || url.includes('abort_controller') || url.includes('domexception'))
    return 'fetch';
  if (url.includes('/fast-check/')) return 'fast-check';
  if (url.includes('node_modules')) return 'other deps';
  if (!url || url.startsWith('node:')) return 'node/native';
  if (!OWN.test(url) || url.includes('/node_modules/')) return 'node/native';
  return 'own JS';
}

export interface AreaRow {
  area: string;
  ms: number;
  share: number;
  kinds: Record<string, number>;
}

/** Time per area (the nearest project frame on each sample's stack) and, inside it, per kind of leaf frame. */
export function profileAreas(text: string): { totalMs: number; idleMs: number; rows: AreaRow[] } {
  const p = JSON.parse(text) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const areaOf = (id: number): string => {
    const hit = memo.get(id);
    if (hit) return hit;
    const n = byId.get(id)!;
    const fn = n.callFrame.functionName;
    let a: string;
    if (fn === '(garbage collector)') a = 'runtime: garbage collector';
    else if (fn === '(program)' || fn === '(idle)' || fn === '(root)') a = `runtime: ${fn.slice(1, -1)}`;
    else {
      a = ownArea(n.callFrame.url) ?? '';
      if (!a) {
        const up = parent.get(id);
        const pa = up === undefined ? 'runtime: start-up and module loading' : areaOf(up);
        a = pa === 'runtime: root' ? 'runtime: start-up, module loading, event loop' : pa;
      }
    }
    memo.set(id, a);
    return a;
  };
  const rows = new Map<string, AreaRow>();
  let total = 0;
  let idle = 0;
  p.samples.forEach((id, i) => {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') {
      idle += dt;
      return;
    }
    total += dt;
    const a = areaOf(id);
    const row = rows.get(a) ?? { area: a, ms: 0, share: 0, kinds: {} };
    row.ms += dt;
    const k = leafKind(n.callFrame.url, n.callFrame.functionName);
    row.kinds[k] = (row.kinds[k] ?? 0) + dt;
    rows.set(a, row);
  });
  const out = [...rows.values()].sort((a, b) => b.ms - a.ms);
  for (const r of out) r.share = r.ms / total;
  return { totalMs: total, idleMs: idle, rows: out };
}

/** Self and inclusive time per function (a function counted once per sample however deep it recurses). */
export function summariseProfile(text: string, top: number): void {
  const p = JSON.parse(text) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const n = byId.get(id)!;
    self.set(label(n), (self.get(label(n)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      incl.set(l, (incl.get(l) ?? 0) + dt);
    }
  });
  const pct = (v: number) => `${((100 * v) / total).toFixed(1).padStart(5)} %`;
  const print = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);
  };
  const idle = self.get('(idle) :0') ?? 0;
  console.log(`\nprofile: ${(total / 1000).toFixed(0)} ms sampled, ${(idle / 1000).toFixed(0)} ms idle`);
  const areas = profileAreas(text);
  console.log('\ntime by area (nearest project frame; leaf kinds inside)');
  for (const r of areas.rows) {
    const kinds = Object.entries(r.kinds)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${((100 * v) / areas.totalMs).toFixed(1)}`)
      .join(', ');
    console.log(`${(100 * r.share).toFixed(1).padStart(5)} %  ${r.area}  [${kinds}]`);
  }
  print('self time', self);
  const byFile = new Map<string, number>();
  for (const [k, v] of self) {
    const file = k.slice(k.indexOf(' ') + 1).replace(/:\d+$/, '');
    byFile.set(file, (byFile.get(file) ?? 0) + v);
  }
  print('self time by file', byFile);
  print('inclusive time', incl);
}

// `node dist-bench/bench/src/cpu-profile-summary.js FILE.cpuprofile [top]`
if (process.argv[1]?.endsWith('cpu-profile-summary.js') && process.argv[2]) {
  const { readFileSync } = await import('node:fs');
  summariseProfile(readFileSync(process.argv[2], 'utf8'), Number(process.argv[3] ?? 45));
}
