// The gemini-batch create body (the API's own JSON, as `submit` hands it over) as @google/genai's
// `batches.create` parameters. proto3 JSON takes lowerCamel and snake_case names alike, so both are read.
export function genaiParams(input) {
  const b = input.batch ?? {};
  const cfg = b.inputConfig ?? b.input_config ?? {};
  const reqs = cfg.requests?.requests ?? [];
  const src = reqs.map((r) => ({ ...(r.request ?? {}), ...(r.metadata ? { metadata: r.metadata } : {}) }));
  // A body with no requests (a harness's) still makes a batch of one: the SDK sends what it is given.
  if (src.length === 0) src.push({ contents: [{ role: 'user', parts: [{ text: String(displayNameOf(input) ?? 'hello') }] }] });
  return {
    model: String(b.model ?? 'models/gemini-2.5-flash').replace(/^models\//, ''),
    src,
    config: { displayName: b.displayName ?? b.display_name },
  };
}

export const displayNameOf = (input) => input.batch?.displayName ?? input.batch?.display_name;
