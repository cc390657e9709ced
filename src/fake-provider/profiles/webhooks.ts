import { isoTime } from '../../lib/clock.js';
import type { JobState } from '../../contract/jobs.js';
import type { Profile } from '../../contract/profiles.js';
import { getPath, render } from '../../contract/profile-template.js';
import type { ProviderCore } from '../core.js';
import { resultDescriptor } from '../engine/results.js';
import type { EventShaper } from '../webhooks/dispatcher.js';
import { inputOf, renderView } from './view.js';

const STATE_OF_EVENT: Record<string, JobState> = {
  'job.running': 'running',
  'job.cancelling': 'cancelling',
  'job.succeeded': 'succeeded',
  'job.failed': 'failed',
  'job.cancelled': 'cancelled',
  'job.expired': 'expired',
};

/**
 * A profile's events: the engine's job event under the API's name, its payload the profile's template over the job
 * as it stood at the event (the row is written after the event is queued, so its state comes from the event).
 * Events the profile does not name, or the create's events filter leaves out, are not sent.
 */
export function profileShaper(core: ProviderCore, p: Profile): EventShaper {
  const w = p.webhooks!;
  return (jobId, jobEvent, eventId, at) => {
    const event = w.events[jobEvent];
    const row = core.jobs.get(jobId);
    if (!event || !row) return null;
    const wanted = w.events_field ? getPath(inputOf(row).request, w.events_field) : undefined;
    if (Array.isArray(wanted) && !wanted.includes(event)) return null;
    const state = STATE_OF_EVENT[jobEvent] ?? row.state;
    const job = {
      ...row,
      state,
      updated_at: at,
      result: state === 'succeeded' ? (row.result ?? resultDescriptor(row.job_id, row.behavior)) : null,
    };
    const view = renderView(p, job, at);
    const time = p.times === 'iso' ? isoTime(at) : p.times === 'unix_s' ? Math.floor(at / 1000) : at;
    const vars: Record<string, unknown> = { view, event, event_id: eventId, id: jobId, at: time };
    return { type: event, payload: JSON.stringify(render(w.payload, (n) => vars[n])) };
  };
}
