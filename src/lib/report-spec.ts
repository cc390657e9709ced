/** Which reports a run writes, and where: the `--report` option shared by `certify` and `verify-provider`. */
export type ReportKind = 'junit' | 'json' | 'md';

/** Parse `junit=PATH,json=PATH,md=PATH`. */
export function parseReportSpec(spec: string): Array<{ kind: ReportKind; path: string }> {
  return spec.split(',').filter(Boolean).map((part) => {
    const [kind, ...rest] = part.split('=');
    const path = rest.join('=');
    if (!['junit', 'json', 'md'].includes(kind ?? '') || !path) throw new Error(`--report expects junit=PATH,json=PATH,md=PATH; got '${part}'`);
    return { kind: kind as ReportKind, path };
  });
}
