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

  /**
   * Journal (`write`) every request still unanswered; close() calls it before its commit. One that had not executed
   * yet (held by a `delay`) changed nothing and is journalled so, effect `none`: it reached the provider, and the
   * judge must see that the client asked (a status read sent in time whose provider died under it).
   */
  cutOff(write: (c: Ctx, status: number, retryAfter: string | null) => void): void {
    for (const c of this.live) {
      const d = c.get('draft');
      if (c.req.path.startsWith('/_control')) continue;
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
