/**
 * Minimal schedules that random runs once shrank to (certify writes them as scenario files): each failed the
 * reference client or fooled the judge, and each must pass for ever after. In process, on the virtual clock, so the
 * verdict does not depend on the machine.
 * - sync-create-answers-expired: seed 7, schedule 958 — a sync create answered with an expired job was taken as
 *   accepted; with every status read lost, a cancel then ended cancellation_unconfirmed (I5).
 * - error-after-commit-on-status-read: seed 1 — a status read that executed and answered 500 was journalled with the
 *   job's state, and I5 took it for an answer the client had been told.
 * - held-last-read-past-deadline: seed 3 — a held last read ended result_timed_out 1,004 ms after the deadline (I12).
 * - job-final-just-after-deadline: seed 9 — the job ended 1 ms after the result deadline; the client's last read saw
 *   it succeeded and collected (results answered 500 throughout); I12 judged "final by the deadline" without the
 *   clock tolerance it applies everywhere else and called the collection polling past the deadline.
 * - job-succeeded-after-deadline-collect-once: seed 9 again, 51 ms past that tolerance — a worker started after the
 *   deadline saw the job succeeded and retried the failing results fetch for 5 s (its minimum of fetches is owed to a
 *   job done in time); a job that succeeded after the deadline now gets one fetch.
 * - every-status-read-hangs: seed 12, schedule 1590 — every status read hangs; the one read sent just after the create
 *   was waited on until the give-up time, so no read followed the job's end (I3). A read now gets at most half of the
 *   time left, and a second read is sent in time.
 * - paused-most-of-the-window (judge, false FAIL): seed 7, schedule 1087 — the job succeeded at once, the only worker
 *   ran 190 ms and was paused until past the result deadline; I3 counted the grace from the worker's first running
 *   moment, not in the time it ran, and demanded a result the client had 190 ms to see.
 * - held-read-abandoned (judge input, false FAIL): seed 3, schedule 1263 — a status read held 400 ms by a delay fault
 *   was given up by the client at its timeout; the provider then answered "cancelled" into the void and journalled it
 *   delivered, and I5 said the client had been told. A held answer to a client that hung up is now journalled lost.
 * - owner-killed-at-deadline (judge, false FAIL): seed 17, schedule 1179 — the worker holding op_2 was killed 1 ms
 *   before its result deadline; the other worker could take it only when the 1,002 ms lease ran out, and ended it 1 ms
 *   past the 1,000 ms grace (I12). A killed or paused owner's lease time no longer counts as time to act.
 * - create-held-to-deadline: seed 19, schedule 1334 — the create's answer hung until the client's 514 ms create
 *   deadline; the lookup then waited a backoff too and was due as the worker was killed at the 1,000 ms result
 *   deadline; the job done at 0 ms was lost (I3). A lookup after a timed-out create now goes at once.
 * - poked-while-stepping: seed 20, schedule 180 — a webhook made op_2 due while its worker stepped it; the worker's
 *   next claim took it again (pushing its next step a 1,516 ms lease ahead) and threw the lease away as busy, so op_2
 *   was never read and ended 1,001 ms past its deadline (I12). Operations being stepped are no longer claimed.
 * - last-reads-in-the-grace: seed 13, schedule 1650 — every status read lost; past the cancel deadline the client read
 *   every 100 ms for the whole grace, 11 polls in 2.2 s against a budget of 10 (I8). The last reads now fall at +100,
 *   +200, +400 ms, and a cancel's confirming read, like a poll, is not sent without room for its answer.
 * - held-second-create-duplicate-webhooks: seed 14 — a held create and duplicated webhooks; op_1 ended
 *   result_timed_out with its job unknown to it (I4). Shrunk on the code before the timed-out-create lookup, the busy
 *   claim and the spaced last reads; it still passes with any one of the three taken back (not isolated further).
 * - owner-killed-after-deadline: seed 15 — as owner-killed-at-deadline, with a 1,295 ms lease (I12).
 * - cancel-held-then-sent-again (judge, false FAIL): seed 1, schedule 1112 — a cancel held 1,347 ms was given up by
 *   the client, which then read the job still running and sent the cancel again; the held one executed after it, and
 *   I6, ordering by execution, called the first-sent cancel the repeat. Cancels are now ordered as they were sent.
 * - read-held-past-its-workers-kill (runner, false FAIL): seed 10, schedule 211 — a status read held 610 ms, its
 *   worker killed in process at 610 ms; the answer was journalled delivered and I5 said the client had been told. A
 *   killed in-process worker's requests now see their connection close, as a killed process's do.
 * - hung-read-then-backoff: seed 11, schedule 1216 — every status read hangs; the read sent 1 ms before the job ended
 *   timed out after 1,000 ms and the retry then backed off past the deadline, so no read followed the job's end (I3).
 *   After a timeout the next try goes at once (the timeout was as long as any backoff).
 * - Minimal schedules of the third sweep (2,000 schedules a seed): timeout-then-backoff (seed 27) passes since the
 *   timeout-retry fix; busy-operation-stale-due-time and …-webhooks (seeds 25 and 9, I12, a deadline ending 200 ms
 *   late): a busy operation's stale due time made the worker sleep a whole idle poll — the wake-up time now skips
 *   what the worker is stepping; lookup-shows-job-ended-status-route-hung (seed 6, I3): a lookup showed the job
 *   already succeeded and the client read it again through a hung status route — a lookup showing an ended job now
 *   ends the operation on it; retry-after-on-replay-past-give-up (seed 23, I12): a 2 s Retry-After on a replayed
 *   create carried the next step past the give-up time — a hold is now capped there, as every other retry is.
 * - provider-down-after-lost-create (judge, false FAIL): seed 19 — a create answer hung until 525 ms, the provider
 *   was down from 524 ms until the cancel's give-up time; the client ended cancellation_unconfirmed having had no
 *   provider to look the job up on, and I4 called the job "unknown to it, never reconciled". An ending that claims
 *   nothing about a job may now stand when the client had less than the grace, provider up, to find it.
 * - create-hung-then-provider-down (judge, false FAIL): seed 19 again, on that fix — the create hung until its 1,000 ms
 *   deadline and the provider was down for the next 100 ms; the grace to find the job ran from the create, while the
 *   client could know the answer was lost only at its timeout. It now runs from the create deadline after a hang
 *   (the journal's fault now says `mode`: reset or hang), from the create itself after a reset.
 * - provider-restart-mid-create (provider, ground truth): seed 46, schedule 487 — the provider restarted 1 ms into
 *   op_1's create; close() committed the turn with the create's job but not its request entry (the journal middleware
 *   writes after the handler, and wrote nothing once closed), so the judge could not link the job to op_1 (I4). A
 *   request still executing at close() is now journalled with its changes, as an answer lost by a reset. (The
 *   results that "did not match their digest" were op_1's `corrupt_digest` behaviour, as the client said.)
 * - start-after-a-kill-that-never-comes (runner, false FAIL): seed 42, schedule 262, the first sweep with hold-timed
 *   harness events — the only worker was killed at 0 ms and worker-2's start waited on a second kill timed by a held
 *   request; with no worker left to send one, the start never came, and the rescue worker stayed away because a start
 *   was pending: "the client never acted". A start that cannot come no longer keeps the rescue away.
 * - lookups-lost-after-held-create (judge, false FAIL): seed 1, schedule 521 of that sweep — the create was held to
 *   its 500 ms deadline and every lookup's answer was lost (reset); the client looked the key up five times until it
 *   gave up 800 ms past the result deadline, and I4 called the job "unknown to it, never reconciled". A client still
 *   looking up when it gives up, with no lookup answered, is now excused as with the provider down.
 * - lookup-sent-at-the-give-up: seed 11, schedule 635 of that sweep — the create held 1,051 ms past its 500 ms deadline
 *   and every lookup hung; the client sent one more lookup at its give-up time, waited it out and ended
 *   result_timed_out 1,050 ms past the result deadline (I12). A lookup, as a status read, now needs room for a whole
 *   answer before the give-up time.
 * - successor-due-past-the-give-up: seed 11, schedule 1618 — the only worker was killed with op_1's create held; the
 *   create executed at 502 ms, and the record said to step op_1 again only after the create's timeout and the lease,
 *   2,002 ms, past the 1,802 ms give-up: the successor ended result_timed_out without a lookup while the job existed
 *   (I4). A successor's first step is now due no later than a whole lookup before the give-up time.
 * - held-lookup-executed-after-give-up (judge, false FAIL): seed 16, schedule 1692 — the one lookup, sent at 698 ms,
 *   was held 800 ms and executed after the client had given up; I4 read the lookup's time as when it executed, found
 *   none sent before the give-up and said "never reconciled". Lookups are now timed by when they were sent.
 * - lookup-under-way-at-the-give-up and paused-with-a-lookup-held (judge, false FAIL): seeds 16 and 23 of the next
 *   sweep — the one lookup was sent 1,001 ms before the give-up (held 1,001 ms, the client waiting on it the whole
 *   time), or its worker was paused while it was held; timed by its sending alone it fell 1 ms outside the grace. A
 *   lookup still under way (held, or executed into a hang) within the grace counts as asking.
 * - results-rate-limited-throughout (judge, false FAIL): seed 19 (webhooks), schedule 1473 — every results fetch was
 *   answered 429 before it executed, so the journal named no job for it; I3 found no fetch of the job and called
 *   result_unavailable dishonest although the client fetched past its deadline. A refused fetch now counts for the
 *   job its path names.
 * - Found once the random schedules' first operation arrives at 0 ms, so that pauses and kills meet working workers
 *   (arbitraries.ts): answers that came while their worker was paused (SIGSTOP) were taken as read, although a
 *   resumed process runs the timers that came due in the pause before it reads its sockets, so the request may be
 *   given up on first (helpers.ts `readableAt`).
 *   - answer-came-while-paused (judge I5, false FAIL): seed 2 — a status read held 500 ms answered "succeeded" while
 *     its worker was paused past the cancel deadline; at the resume its timeout won and it ended
 *     cancellation_unconfirmed, which I5 called dishonest.
 *   - results-answer-came-while-paused (judge I13): seed 1 — the held results answer came in the pause, the worker
 *     fetched again at its resume; "fetched twice".
 *   - results-fetch-overtaken-by-takeover, results-paused-then-taken-over (judge I13): seeds 3 and 4 — a results
 *     fetch still under way (or answered into the pause) when the new lease holder fetched: two fetches of a
 *     takeover, the one request a worker may have under way when it loses its lease (I9), not of a webhook.
 *   - cancel-unanswered-at-takeover (judge I6): seed 4 — worker-1's cancel held 2 s while it was paused; worker-3 took
 *     the lease and sent its own cancel while the first was unanswered; I6 read the first as answered before the
 *     second by journal order (it executed first) rather than by when the second was sent.
 *   - one-shot-results-served-to-paused-worker (judge I3): seed 10 — one-shot results served into a paused worker's
 *     held fetch; the new owner met 410 and ended result_unavailable, which I3 called dishonest ("the results
 *     reached the client").
 *   - lookup-after-replay-rate-limited (reference client, I7): seed 14 — the lookup that follows a replayed create was
 *     answered 429 with Retry-After 1 s, and the next status read went 425 ms later; the lookup's hold now sets the
 *     operation's not-before (capped at the give-up time, as every hold is).
 *   - killed-while-paused (runner, false FAIL): seed 16 — worker-1 was paused, then killed, and the pause's resume
 *     was still logged a millisecond later; the judge took the dead worker for running and counted I12's grace from
 *     there, though no worker ran until worker-2 started 1.4 s later. A kill now ends the pause: no resume follows.
 *   - worker-exited-as-operation-arrived (judge I12, false FAIL): seed 25 — worker-1 found every operation final and
 *     exited in the millisecond op_2 was submitted; worker-2, its only other worker, was paused past op_2's deadline.
 *     An exit counted as time given away, so the grace ran from the deadline. A worker that exited by an
 *     operation's arrival never saw it: it is gone for that operation (worker-presence.ts `arrivedBy`).
 *   - create-answer-came-while-paused (judge I5, false FAIL): seed 10 (webhooks) — a held create answered into the
 *     pause; at the resume the create's timeout won. An answer that came while its worker was paused is never taken
 *     as surely read (the first form of the rule took it as read from the resume on).
 *   - status-read-cut-off-by-restart (provider journal and judge I3, false FAIL): seed 28 — every status read held
 *     2 s; the provider restarted under the first, sent before the deadline, and that read, never executed, was left
 *     out of the journal; I3 saw no read in time and called result_timed_out dishonest. A request cut off unexecuted
 *     is now journalled (effect none, 503, lost), and I3 attributes it to the job its path names.
 *   Drawn by schedules with flapping 5xx on every route and a lost create paired with a foreign replay (tried, not
 *   yet the default draw):
 *   - replay-unanswered-after-lookup (reference client, I3): seed 11 — op_3's lookup showed its job succeeded; the
 *     replay sent to confirm it was answered 500, and the client went back to create_unknown, forgetting the job;
 *     every later lookup was refused and the result was lost. An unanswered confirming replay now adopts the job the
 *     lookup showed.
 *   - replay-unchecked-foreign-id (reference client, I10): seed 7 — a replayed create named a foreign job and the
 *     lookup meant to check it was refused; the client took the replay's job unchecked and ended on that job's state.
 *     An unchecked replay now leaves the create's outcome unknown, remembers the job it named, and a lookup that shows
 *     another job stops in needs_attention (a replay conflict).
 *   - hung-create-paused-lookup (reference client, I3): the create hung its whole 931 ms window (result deadline
 *     1,000 ms; the job succeeded at 0 ms); the lookup sent then was held 70 ms and answered while its worker was
 *     paused (1,000–1,365 ms), so at the resume its timeout won. Past the deadline the retry was spaced as after an
 *     answer (+365 ms), which left no room for a read before the 1,800 ms give-up. After a timeout the next try now
 *     goes at once past the deadline too (deadlines.ts `retryAt`), as it already did before it.
 *   - hung-create-killed-after-window (reference client, I3): op_2's create hung its whole window, equal to its
 *     result window (to 2,475 ms; the job succeeded at 596 ms); the lookup that should follow a timed-out create at
 *     once was spaced 100 ms by the same past-deadline rule, and its worker was killed 99 ms after the timeout; the
 *     rescue's one lookup after the lease was answered 500. Both were judged by an I3 that counted the hung create as
 *     time the client had; since create-hung-owner-killed-before-its-timeout (below) the judge excuses both, and the
 *     client's retryAt rule is pinned by test/reference-client/deadlines.test.ts.
 *   With that draw made the default, seeds 1 and 8 of 1,000 schedules:
 *   - create-hung-owner-killed-before-its-timeout (judge I3, false FAIL): seed 1, schedule 39 — create window = result
 *     window = 1,001 ms, the create hung and the job succeeded at 0 ms; the only worker was killed at 1,000 ms, 1 ms
 *     before its create would time out; its lease (renewed until the kill) ran to 1,554 ms, and the rescue, due then,
 *     had no room for a lookup before its 1,801 ms give-up. I3 counted the hung create as time to collect, demanding
 *     that a client learn of a job within the grace while waiting on its own create, which it may do for the whole
 *     create window; I4 already ran that grace from the create deadline after a hang. Both now take it from
 *     createKnowableAt (context.ts). The two schedules above pass by this too, with the client as it was.
 *   - pause-after-kill-resumed-dead-worker (runner, false FAIL, I12): seed 8, schedule 375 — worker-2 was killed at
 *     0 ms and then paused; the pause of the dead worker was logged with its resume at 201 ms, and the judge counted
 *     worker-2 as running from there, so op_2's owner's kill at 1,478 ms left "time to act" that no worker had: ended
 *     1 ms past the grace. Pausing a worker that is gone now does nothing and logs nothing.
 *   - replay-answer-to-killed-worker (reference client, I10): seed 1, schedule 39 of the same draw — worker-1 was
 *     killed right after its create was answered; worker-2's replay at 200 ms was answered with a foreign job (…02),
 *     and worker-2 was killed while the lookup that checks it was held; the rescue's replay got a third id (…03), its
 *     lookup showed the key's job (…01), and it stopped in needs_attention naming …01 and …03 only. Worker-2 had read
 *     …02 (it sent the lookup after it) and written nothing. The client now writes a replay's job before the lookup
 *     that checks it (`conflicting_job_id`, unconfirmed), and a replay answering another job than an earlier one
 *     stops at once naming both. I10 counts an answer once its worker lived to act on it (reachedALiveWorker, as I5).
 *   - replay-answer-died-with-its-worker (reference client, I10): seed 1 of the same draw with the rule above — the
 *     same kill during the lookup, and the rescue, seeing no conflict, adopted the key's job and ended succeeded
 *     although worker-2 had read the foreign answer. It now finds the unconfirmed id and stops in needs_attention.
 *   - replay-check-answered-while-paused (judge I10, false FAIL): seed 1 again, with both fixes above — the first
 *     create's answer hung; worker-2's replay at 1,206 ms was answered with a foreign job, and the lookup that checks
 *     it was answered while worker-2 was paused (1,206–1,609 ms), so its timeout fired first; no room was left for
 *     another lookup, and the client ended result_timed_out with the replay's job named, unconfirmed, in its history.
 *     No answer it could read ever showed the key's own job, so nothing told it the replay's job was foreign: I10 asked
 *     for needs_attention all the same. A client never shown the key's job is now held only to not taking the
 *     replay's job for its own (sawKeysJob, i10-contract-violation.ts).
 *   - cancel-intent-lookup-shows-job-ended (reference client, I5): seed 14 of the same draw — op_2's replay was
 *     answered with its job, succeeded, and the lookup to check it failed (flapping 500s), so the create stayed
 *     unknown; a cancel was asked meanwhile, and the next lookup showed the job, succeeded. Reconciliation moved to
 *     cancel_requested on the cancel intent without looking at the job's state; its cancel deadline had passed, and it
 *     ended cancellation_unconfirmed although the provider had told it the job succeeded. A lookup that shows the job
 *     ended now ends the operation on it, cancel intent or not (a cancel that lost the race).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenarioInProcess } from '../../src/conformance/runner/run-scenario.js';
import { createReferenceClient } from '../../src/reference-client/index.js';
import { parseScenario } from '../../src/scenarios/index.js';

const DIR = join(import.meta.dirname, 'fixtures', 'regressions');
const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

describe('shrunk failures stay fixed', () => {
  it('has the fixtures', () => expect(files.length).toBeGreaterThanOrEqual(25));

  it.each(files)('%s: the reference client holds every invariant', async (file) => {
    const s = parseScenario(JSON.parse(readFileSync(join(DIR, file), 'utf8')));
    const run = await runScenarioInProcess(s, createReferenceClient, { seed: 1 });
    const broken = run.verdict.invariants
      .filter((i) => i.status === 'broken')
      .flatMap((i) => i.failures.map((f) => `${i.id}: ${f.explanation}`));
    expect(broken).toEqual([]);
    expect(run.outcome.verdict).not.toBe('fail');
  });
});
