// The OpenAI Batch API through openai-node (retries off: the durable loop decides). A lost create is recovered by
// listing batches and matching the `metadata` the create carried (docs/decisions/013-dialect-lost-create-recovery.md).
import { toFile } from 'openai';
import { parseJsonl, sha256, verifyLines } from './durable.mjs';

export const METADATA_KEY = 'client_operation_id';
const LIST_WINDOW_MS = 60_000;

export function openaiWire(client) {
  return {
    async create(op, opts, mine) {
      const { endpoint, requests } = op.request.input;
      const jsonl = requests.map((r) => JSON.stringify(r)).join('\n') + '\n';
      const file = await client.files.create({ file: await toFile(Buffer.from(jsonl), `${op.id}.jsonl`), purpose: 'batch' }, opts);
      if (!mine()) return null;
      return client.batches.create(
        { input_file_id: file.id, endpoint, completion_window: '24h', metadata: { [METADATA_KEY]: op.id } },
        opts,
      );
    },
    /** The oldest batch whose metadata names the operation, created since its first attempt; null when none. */
    async find(op, opts, claimed) {
      const since = (op.first_attempt_at ?? op.submitted_at) - LIST_WINDOW_MS;
      let match = null;
      for await (const b of client.batches.list({ limit: 100 }, opts)) {
        if (b.created_at * 1000 < since) break;
        if (b.metadata?.[METADATA_KEY] === op.id && !claimed.has(b.id)) match = b;
      }
      return match;
    },
    read: (id, opts) => client.batches.retrieve(id, opts),
    cancel: (id, opts) => client.batches.cancel(id, opts),
    status: (b) => b.status,
    phase(b) {
      if (b.status === 'completed') return 'succeeded';
      if (b.status === 'failed' || b.status === 'expired') return 'failed';
      if (b.status === 'cancelled') return 'cancelled';
      return b.status === 'cancelling' ? 'cancelling' : 'running';
    },
    /** Both files of the batch; `sha256` is the output file's (the error file's when there is no output). */
    async results(op, opts) {
      const b = await client.batches.retrieve(op.batch_id, opts);
      const fetch = async (id) => Buffer.from(await (await client.files.content(id, opts)).arrayBuffer());
      const out = b.output_file_id ? await fetch(b.output_file_id) : null;
      const err = b.error_file_id ? await fetch(b.error_file_id) : null;
      const lines = [
        ...(out ? parseJsonl(out).map((l) => ({ ...l, _file: 'output' })) : []),
        ...(err ? parseJsonl(err).map((l) => ({ ...l, _file: 'error' })) : []),
      ];
      const v = verifyLines(op, lines, (l) => l._file === 'error' || l.error != null || l.response?.status_code !== 200);
      return { ...v, sha256: sha256(out ?? err ?? Buffer.alloc(0)) };
    },
  };
}
