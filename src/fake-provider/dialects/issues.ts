/** Field-level validation issues (as `zodErrors` lists them) folded into one message, the only place both APIs have. */
export function withIssues(detail: string, errors: unknown): string {
  if (!Array.isArray(errors) || errors.length === 0) return detail;
  const list = (errors as Array<{ path: string; message: string }>).slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  return `${detail}: ${list.join('; ')}`;
}

/** OpenAI names the offending parameter in `param`. */
export function firstPath(errors: unknown): string | null {
  if (!Array.isArray(errors) || errors.length === 0) return null;
  const p = (errors[0] as { path?: unknown }).path;
  return typeof p === 'string' && p !== '(body)' ? p : null;
}
