/** The live stream as the dashboard bench reads it: one SSE connection, events parsed as they arrive. */

export interface StreamReader {
  events: Array<{ seq: number; at: number; got: number; html: string }>;
  waitFor(pred: (e: { html: string; seq: number }) => boolean): Promise<number>;
  close(): void;
}

/** A live-stream reader as a browser's EventSource would be: one connection, events parsed as they come. */
export async function openStream(url: string, keep: boolean): Promise<StreamReader> {
  const ctl = new AbortController();
  const res = await fetch(`${url}/_dashboard/stream`, { signal: ctl.signal });
  if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`);
  const events: StreamReader['events'] = [];
  const waiters: Array<{ pred: (e: { html: string; seq: number }) => boolean; done: (t: number) => void }> = [];
  const decoder = new TextDecoder();
  let buf = '';
  void (async () => {
    const reader = res.body!.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += decoder.decode(value, { stream: true });
        for (let i = buf.indexOf('\n\n'); i !== -1; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (!block.includes('event: entry')) continue;
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          const d = JSON.parse(data) as { seq: number; at: string; html: string };
          const e = { seq: d.seq, at: Date.parse(d.at), got: Date.now(), html: keep ? d.html : '' };
          if (keep) events.push(e);
          for (const w of [...waiters]) {
            if (!w.pred(d)) continue;
            waiters.splice(waiters.indexOf(w), 1);
            w.done(e.got);
          }
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    waitFor: (pred) => new Promise((done) => waiters.push({ pred, done })),
    close: () => ctl.abort(),
  };
}

export const pct = (xs: number[], p: number) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]! : NaN;
};
