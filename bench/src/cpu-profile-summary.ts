/** A `node --cpu-prof` profile summarised: the top functions by self and by inclusive time. */
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

function label(n: ProfileNode): string {
  const f = n.callFrame;
  const file = f.url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^node:/, '');
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
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
