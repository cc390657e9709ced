import type { ErrorRenderer } from '../../http/mount.js';
import { firstPath, withIssues } from '../issues.js';

/**
 * OpenAI's error body: `{"error": {"message", "type", "param", "code"}}` with the HTTP status (the SDK reads
 * `error.message`, `error.type`, `error.param`, `error.code`). jobproof's own code stays in the journal.
 */
function typeAndCode(status: number, code: string): { type: string; code: string | null } {
  if (code === 'unauthorized') return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  if (code === 'payload_too_large') return { type: 'invalid_request_error', code: 'request_too_large' };
  return { type: 'invalid_request_error', code: null };
}

const MESSAGES: Record<string, string> = {
  unauthorized: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
  internal_error: 'The server had an error while processing your request. Sorry about that!',
};

export const openaiError: ErrorRenderer = ({ status, code, detail, extras }) => {
  const { type, code: wireCode } = typeAndCode(status, code);
  const param = typeof extras.param === 'string' ? extras.param : firstPath(extras.errors);
  return { body: { error: { message: MESSAGES[code] ?? withIssues(detail, extras.errors), type, param, code: wireCode } } };
};
