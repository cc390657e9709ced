/**
 * The variables a profile's templates may name, by template (profile-template.ts). One list for the provider that
 * fills them in, the checker that refuses an unknown one, and the reference that documents them.
 */
export const VIEW_VARIABLES: Record<string, string> = {
  id: 'the job id (as the profile names it: generated or client-chosen)',
  state: "the API's value for the job's state (state.values / serve_as)",
  done: 'true once the job is final (succeeded, failed, cancelled, expired)',
  kind: 'the job kind (the create body field `create.kind`, else the profile name)',
  client_ref: 'the create body field `create.client_ref`, or null',
  trace_id: 'the X-Trace-ID of the create, or null',
  created_at: 'when the job was created (in `times`)',
  updated_at: 'when the job last changed',
  finished_at: 'when the job ended, or null',
  cancel_requested_at: 'when a cancel was first asked, or null',
  'progress.completed': 'items completed',
  'progress.total': 'items in all',
  'progress.percent': 'completed/total as a whole percentage 0-100',
  'progress.fraction': 'completed/total as a number 0-1',
  result: "null unless succeeded; else {url, sha256, content_type, size, items_total, items_failed} (native's result)",
  'result.url': 'absolute URL of the results route (null unless succeeded)',
  'result.path': 'the results route path from the server root (null unless succeeded)',
  'result.sha256': 'SHA-256 (hex) of the results body (null unless succeeded)',
  'result.size': 'bytes of the results body',
  'result.items': 'the result items as a JSON array (inline results)',
  'result.items_total': 'how many items',
  'result.items_failed': 'how many items failed',
  error: 'the job_error template for states it lists, else null',
  'error.code': 'the error code (job_error per-state code, else the engine code)',
  'error.message': 'the error message',
  base: 'absolute URL of the profile root (origin + prefix)',
  'url.read': 'absolute URL of the read route for this job',
  'url.cancel': 'absolute URL of the cancel route for this job',
  'path.read': 'the read route path from the server root',
};

export const ERROR_VARIABLES: Record<string, string> = {
  status: 'the HTTP status (a number)',
  code: "the refusal's code after `errors.codes` (jobproof's own code when unmapped)",
  jobproof_code: "jobproof's stable code (job_not_found, idempotency_key_reused, …)",
  message: 'a human-readable message',
  title: "the status' reason phrase (Not Found)",
  type: 'https://jobproof.dev/problems/<jobproof code>',
  request_id: 'the X-Request-ID of the answer',
};

export const LIST_VARIABLES: Record<string, string> = {
  items: 'the jobs of the page, each as its view (an array)',
  next_page_token: 'the token of the next page, or null',
  next_page_url: 'the absolute URL of the next page (the route with its token parameter), or null',
};

export const WEBHOOK_VARIABLES: Record<string, string> = {
  view: 'the job view',
  event: "the API's event name",
  event_id: 'the delivery id, stable across retries',
  id: 'the job id',
  at: 'when the event happened (in `times`)',
};

/** Whether `name` is known where `known` applies; `request.<path>` (a create body field) is known in every view. */
export function knownVariable(name: string, known: Record<string, string>): boolean {
  return name in known || (known === VIEW_VARIABLES && /^request\.[\w.]+$/.test(name));
}
