import type { ErrorRenderer } from '../../http/mount.js';
import { withIssues } from '../issues.js';

/**
 * Anthropic's error body: `{"type": "error", "error": {"type", "message"}, "request_id"}`; the error type follows
 * the HTTP status as in Anthropic's documented table. jobproof's own code stays in the journal.
 */
function errorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

const MESSAGES: Record<string, string> = {
  unauthorized: 'invalid x-api-key',
  internal_error: 'Internal server error',
};

export const anthropicError: ErrorRenderer = ({ status, code, detail, extras, requestId }) => ({
  body: {
    type: 'error',
    error: { type: errorType(status), message: MESSAGES[code] ?? withIssues(detail, extras.errors) },
    request_id: requestId,
  },
});
