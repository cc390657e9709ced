const MAP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text and attribute values in HTML and SVG: everything in a report may come from the client under test. */
export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => MAP[c]!);
}

/** An id fragment from any text (scenario names, invariant ids). */
export function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'x'
  );
}
