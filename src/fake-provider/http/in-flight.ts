import { retryAfterOf } from './answer.js';
import type { Ctx } from './context.js';

/**
 * Requests between their turn's `join` and their journal entry. A request executes (creates a job, requests a
 * cancel) before its entry is written, a few microtasks later; if the provider closes in between, `close()` commits
 * the turn with the request's changes, so the entry must go with them: `cutOff` journals each such request as what
 * its client got, an answer lost by a reset connection (the journal middleware writes nothing once closed).
 */
export class InFlight {
  private readonly live = new Set<Ctx>();

  add(c: Ctx): void {
    this.live.add(c);
  }

  delete(c: Ctx): void {
    this.live.delete(c);
  }

  /** Journal (`write`) every request that executed something and is still unanswered; close() calls it before its commit. */
  cutOff(write: (c: Ctx, status: number, retryAfter: string | null) => void): void {
    for (const c of this.live) {
      const d = c.get('draft');
      // Refused or not yet executed: nothing of it is in the turn, as if the process had died before it ran.
      if (d.effect === 'none' || c.req.path.startsWith('/_control')) continue;
      d.delivery = 'lost';
      // The process goes away under the connection: the client sees it reset, not hang.
      d.loss = 'reset';
      // The handler's answer when it has one; else what a closed provider answers (http/app.ts onError).
      const status = c.finalized ? c.res.status : 503;
      write(c, status, c.finalized ? retryAfterOf(c.res) : null);
    }
    this.live.clear();
  }
}
