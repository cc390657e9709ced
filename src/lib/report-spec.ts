/** Which reports a run writes, and where: the `--report` option shared by `certify` and `verify-provider`. */
export type ReportKind = 'junit' | 'json' | 'md' | 'html';

/** Parse `junit=PATH,json=PATH,md=PATH` (and `html=PATH` where the command writes one: certify does). */
export function parseReportSpec(
  spec: string,
  kinds: readonly ReportKind[] = ['junit', 'json', 'md'],
): Array<{ kind: ReportKind; path: string }> {
  return spec
    .split(',')
    .filter(Boolean)
    .map((part) => {
      const [kind, ...rest] = part.split('=');
      const path = rest.join('=');
      if (!(kinds as readonly string[]).includes(kind ?? '') || !path)
        throw new Error(`--report expects ${kinds.map((k) => `${k}=PATH`).join(',')}; got '${part}'`);
      return { kind: kind as ReportKind, path };
    });
}
