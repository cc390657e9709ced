/** bench/dashboard.md from the dashboard bench's figures (docs/benchmarks.md includes it). */

export type Variant = 'off' | 'on' | 'watched';

type Figures = Record<string, number> & { lag_ms: Record<string, number> };
type Overhead = Record<string, number> & {
  cpu_us_per_read: Record<Variant, number[]>;
  median_cpu_us: Record<Variant, number>;
  median_rps: Record<Variant, number>;
};

export function markdown(r: {
  meta: Record<string, unknown>;
  overhead: Record<string, unknown>;
  follow: Record<string, unknown>;
  followJournal: Record<string, unknown>;
  pages: Record<string, number>;
}): string {
  const o = r.overhead as Overhead;
  const f = r.follow as Figures;
  const j = r.followJournal as Figures;
  const n = (x: number) => Math.round(x).toLocaleString('en');
  return [
    '## Dashboard (issue 14; `npm run bench:dashboard`)',
    '',
    `Run of ${String(r.meta.date).slice(0, 10)}; load average ${(r.meta.load_before as number[]).join(' / ')} before, ${(r.meta.load_after as number[]).join(' / ')} after — a shared, busy machine, so only ratios of interleaved rounds are read.`,
    '',
    `Status reads (20 connections, ${o.rounds} interleaved rounds of ${n(o.amount)} reads) against three \`jobproof serve\` processes. The figure is CPU time of the provider process per read (user + system, from /proc, until the process is idle again), which a busy machine disturbs far less than reads/s:`,
    '',
    '| provider | CPU µs per read (median) | rounds | vs --no-dashboard | reads/s (median, for information) | target |',
    '| --- | --- | --- | --- | --- | --- |',
    `| --no-dashboard | ${n(o.median_cpu_us.off)} | ${o.cpu_us_per_read.off.map(n).join(', ')} | 1.00× | ${n(o.median_rps.off)} | |`,
    `| dashboard on, nobody watching | ${n(o.median_cpu_us.on)} | ${o.cpu_us_per_read.on.map(n).join(', ')} | ${o.on_vs_off.toFixed(3)}× | ${n(o.median_rps.on)} | adds < 5 % (≤ 1.05×): **${o.on_vs_off <= 1.05 ? 'met' : 'not met'}** |`,
    `| dashboard on, a live stream open | ${n(o.median_cpu_us.watched)} | ${o.cpu_us_per_read.watched.map(n).join(', ')} | ${o.watched_vs_off.toFixed(3)}× | ${n(o.median_rps.watched)} | (for information: every entry streamed, headers and bodies recorded) |`,
    '',
    `Pages at ${n(r.pages.entries)} journal entries (in-process, median of 3): newest page ${r.pages.newest_page_ms} ms, an old page ${r.pages.old_page_ms} ms, grouped by job ${r.pages.grouped_by_job_ms} ms, a filter matching nothing ${r.pages.filtered_none_ms} ms (it reads at most 20,000 entries, then offers "older"), jobs & tasks (timelines from the newest 20,000 entries) ${r.pages.jobs_page_ms} ms.`,
    '',
    `The stream alone: ${n(j.appended)} journal entries appended at ${n(j.target_rate)}/s for ${j.seconds} s (achieved ${n(j.achieved_rate)}/s) into a provider served over loopback, one live stream reading: ${n(j.entries_streamed)} entries streamed; delay p50 ${j.lag_ms.p50} ms, p99 ${j.lag_ms.p99} ms, max ${j.lag_ms.max} ms; the last entry arrived ${j.catch_up_ms} ms after the last append — **${j.entries_streamed >= j.appended && j.lag_ms.p99 < 1000 && j.catch_up_ms < 1000 ? 'keeps up' : 'falls behind'}**.`,
    '',
    `Through HTTP: a live stream following ${n(f.target_rate)} requests/s for ${f.duration_s} s (status reads, 20 connections, rate-limited): ${n(f.achieved_rps)} requests/s achieved, ${n(f.entries_streamed)} entries streamed; delay from an entry's journal time to its arrival at the reader p50 ${f.lag_ms.p50} ms, p99 ${f.lag_ms.p99} ms, max ${f.lag_ms.max} ms; after the load stopped, a sentinel request was on the stream ${f.catch_up_ms} ms later — **${f.lag_ms.p99 < 1000 && f.catch_up_ms < 1000 ? 'keeps up' : 'falls behind'}** (rule: p99 delay and catch-up under 1 s).`,
    '',
  ].join('\n');
}
