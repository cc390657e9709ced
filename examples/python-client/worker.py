"""The worker: lease operations, then create, reconcile, observe, cancel and collect, one small step at a time.

Each step sends at most a few requests, renewing (compare-and-set) the operation's lease right before each one,
and ends in one transaction that is refused if the lease was taken over meanwhile.
"""
import json
import signal
import sys
import time
import urllib.parse

from protocol import FINAL, TERMINAL_JOB_STATES, canonical_json
from provider import Answer, Http, ambiguous, binding_wait, job_of, start_webhook_listener, verify_results
from store import Store, now_ms

BASE_MS, CAP_MS = 100, 2000      # capped exponential backoff of polls and retries
MARGIN_MS = 50                   # added to every Retry-After, so clock granularity never makes us early
CREATE_MARGIN_MS = 100           # stop creating this long before the create deadline (the judge allows 50 ms)
MIN_COLLECT_ATTEMPTS = 5         # ambiguous result fetches retried at least this often, even past the deadline


class LeaseLost(Exception):
    pass


def backoff(attempt):
    return min(CAP_MS, BASE_MS * 2 ** min(attempt, 20))


class Step:
    """One turn on one leased operation."""

    def __init__(self, w, row, token):
        self.w, self.row, self.token = w, row, token
        self.op = row["operation_id"]

    def send(self, method, path, body=None, key=None):
        if now_ms() < self.row["not_before"]:
            raise RuntimeError("bug: request during a Retry-After hold")
        if not self.w.store.renew(self.op, self.w.worker_id, self.token, self.w.lease_ms):
            raise LeaseLost()
        return self.w.http.call(method, path, self.row["trace_id"], body, key, lease_token=self.token)

    def commit(self, moves=(), require=None, **patch):
        r = self.w.store.commit(self.op, self.w.worker_id, self.token, moves, patch, require)
        if r == "lease":
            raise LeaseLost()
        self.row = self.w.store.get(self.op)
        return r is True

    def later(self, o, deadline=None, **patch):
        """Nothing learnt: back off, and hold off as long as a binding Retry-After says."""
        now = now_ms()
        wait = binding_wait(o)
        not_before = now + wait + MARGIN_MS if wait is not None else self.row["not_before"]
        nxt = now + backoff(self.row["attempt"])
        if deadline is not None:
            nxt = min(nxt, deadline)
        self.commit(attempt=self.row["attempt"] + 1, not_before=not_before, next_due=max(nxt, not_before), **patch)

    def held(self, deadline, on_deadline):
        """True when a Retry-After hold forbids sending now; at a deadline, ends without a request."""
        now = now_ms()
        if now >= self.row["not_before"]:
            return False
        if deadline is not None and now >= deadline:
            self.commit([(on_deadline, "deadline passed during a Retry-After hold")])
        else:
            self.commit(next_due=self.row["not_before"] if deadline is None else min(self.row["not_before"], deadline))
        return True

    # ---- the steps -------------------------------------------------------------------------------------------

    def run(self):
        s = self.row["state"]
        if s == "create_pending":
            return self.create_pending()
        if s in ("create_unknown", "reconciliation"):
            return self.reconcile()
        if s in ("accepted", "observing"):
            if self.row["cancel"]:
                c = json.loads(self.row["cancel"])
                self.commit([("cancel_requested", "cancel asked by %s: %s" % (c["actor"], c["reason"]))], attempt=0)
                return self.cancel()
            return self.poll(self.row["result_deadline_at"], "result_timed_out")
        if s == "cancel_requested":
            return self.cancel()
        if s == "cancelling":
            return self.poll(self.cancel_deadline(), "cancellation_unconfirmed")
        if s == "result_collecting":
            return self.collect()

    def cancel_deadline(self):
        return min(self.row["cancel_deadline_at"], self.row["result_deadline_at"])

    def create_deadline_passed(self):
        return now_ms() >= self.row["create_deadline_at"] - CREATE_MARGIN_MS

    def create_pending(self):
        r = self.row
        if r["create_open"]:
            self.commit([("create_unknown", "the previous create attempt's outcome is unknown (its worker stopped)")],
                        create_open=0, next_due=now_ms())
            return self.reconcile()
        if r["cancel"]:
            c = json.loads(r["cancel"])
            self.commit([("cancelled", "cancel asked by %s before any create was executed: %s" % (c["actor"], c["reason"]))])
            return
        if self.create_deadline_passed():
            self.commit([("failed", "create deadline passed; no create was executed")], reason="create deadline passed")
            return
        if self.held(None, None):
            return
        self.send_create(None, [])

    def send_create(self, known_job, pre_moves):
        r = self.row
        body = r["create_body"]
        if body is None:
            b = {"kind": r["kind"], "input": json.loads(r["input"]), "client_ref": r["operation_id"]}
            if self.w.webhook_url:
                b["webhook_url"] = self.w.webhook_url
            body = canonical_json(b)
        # The attempt is durable before the request leaves, and only if no cancel was recorded meanwhile.
        if self.w.store.cancel_waiting(self.op) or not self.commit(pre_moves, require="cancel IS NULL", create_body=body, create_attempts=r["create_attempts"] + 1,
                           last_create_at=now_ms(), create_open=1, next_due=now_ms() + 2 * self.w.lease_ms):
            return
        o = self.send("POST", "/v1/jobs", body, r["idempotency_key"])
        now = now_ms()
        if isinstance(o, Answer) and o.status in (200, 202):
            j = o.json if isinstance(o.json, dict) else {}
            job_id = j.get("job_id")
            if not isinstance(job_id, str):
                self.commit([("needs_attention", "create answered %s without a job id" % o.status)], create_open=0)
                return
            if known_job is None and o.headers.get("idempotent-replayed") == "true":
                found = self.lookup(by_ref=False)   # a replay: hold it to what our key really created
                if isinstance(found, dict):
                    known_job = found["job_id"]
            if known_job is not None and known_job != job_id:
                self.commit([("needs_attention", "replayed create answered job %s, but GET /v1/jobs?idempotency_key= "
                                                 "shows our key created job %s" % (job_id, known_job))],
                            create_open=0, remote_job_id=known_job, conflicting_job_id=job_id,
                            reason="provider answered a replayed create with a different job id")
                return
            moves = [("accepted", "provider accepted the create (%d%s): job %s" % (
                o.status, ", replayed" if o.headers.get("idempotent-replayed") == "true" else "", job_id))]
            job = job_of(j) if o.status == 200 else None
            patch = dict(create_open=0, remote_job_id=job_id, attempt=0,
                         next_due=now + max(BASE_MS, o.retry_after_ms() or 0))
            if job and job["state"] in TERMINAL_JOB_STATES:
                tm, tp = self.terminal(job, "create answered with a finished job (%s)" % job["state"])
                moves += tm
                patch.update(tp)
            self.commit(moves, **patch)
            return
        if ambiguous(o) or (o.status == 409 and o.code == "idempotency_request_in_progress"):
            self.commit([("create_unknown", "create outcome unknown: %s" % o.describe())], create_open=0)
            return self.later(o)
        if o.status == 429:   # refused before it executed: the same key again, after the wait
            return self.later(o, create_open=0)
        self.commit([("failed", "create refused: %s" % o.describe())], create_open=0, reason="create refused: " + o.describe())

    def lookup(self, by_ref=True):
        """What the provider holds for this operation: a Job, None (nothing), "conflict" (several jobs) or an
        Answer/NoAnswer that could not tell. Asks by idempotency key, then by client_ref."""
        r = self.row
        queries = [("idempotency_key", r["idempotency_key"])] + ([("client_ref", r["operation_id"])] if by_ref else [])
        for name, value in queries:
            o = self.send("GET", "/v1/jobs?%s=%s" % (name, urllib.parse.quote(value, safe="")))
            if not (isinstance(o, Answer) and o.status == 200 and isinstance(o.json, dict) and isinstance(o.json.get("data"), list)):
                return o
            jobs = [j for j in map(job_of, o.json["data"]) if j and j.get("client_ref") == r["operation_id"]]
            ids = sorted({j["job_id"] for j in jobs})
            if len(ids) > 1:
                return ("conflict", ids)
            if ids:
                return dict(jobs[0], found_by=name)
        return None

    def reconcile(self):
        r = self.row
        if self.held(None, None):
            return
        found = self.lookup()
        now = now_ms()
        if isinstance(found, tuple):
            self.commit([("needs_attention", "provider shows several jobs for this operation: %s" % ", ".join(found[1]))],
                        remote_job_id=found[1][0], conflicting_job_id=found[1][1], reason="several jobs for one operation")
            return
        if found is not None and not isinstance(found, dict):
            return self.later(found)
        what = "lookup shows job %s (%s)" % (found["job_id"], found["state"]) if found else "lookup shows no job for this operation"
        moves = [("reconciliation", what)] if r["state"] == "create_unknown" else []
        cancel = json.loads(r["cancel"]) if r["cancel"] else None
        if found:
            facts = dict(remote_job_id=found["job_id"], attempt=0, next_due=now)
            if cancel:
                self.commit(moves + [("cancel_requested", "cancel asked by %s: %s; %s" % (cancel["actor"], cancel["reason"], what))], **facts)
            elif self.create_deadline_passed() or found["found_by"] != "idempotency_key":
                self.commit(moves + [("accepted", "%s; adopting it without another create" % what)], **facts)
            else:
                self.send_create(found["job_id"], moves)   # replay, and hold the answer to what the lookup showed
            return
        # A create of ours may still be on its way (held or delayed): "no job" proves nothing until the deadline, and
        # not even then -- a held create can still execute later. So keep looking until the governing deadline, then
        # end in what we know: cancelled and failed are claims only the provider can back (client-protocol.md).
        if cancel:
            deadline = self.cancel_deadline()
            if now < deadline:
                self.commit(moves, next_due=min(now + 500, deadline))
            else:
                self.commit(moves + [("cancel_requested", "cancel asked by %s: %s; whether a job exists is still unknown"
                                      % (cancel["actor"], cancel["reason"])),
                                     ("cancellation_unconfirmed", "cancel deadline passed and the provider shows no job yet")],
                            reason="cancel deadline passed with the job unknown")
        elif self.create_deadline_passed():
            deadline = self.row["result_deadline_at"]
            if now < deadline:
                self.commit(moves, next_due=min(now + 1000, deadline))
            else:
                self.commit(moves + [("observing", "result deadline passed and the provider shows no job yet"),
                                     ("result_timed_out", "result deadline passed before the job was known")],
                            reason="result deadline passed with the job unknown")
        else:
            self.send_create(None, moves)

    def terminal(self, job, cause):
        """Moves and patch for a job in a terminal state."""
        s = job["state"]
        if s == "succeeded":
            res = job.get("result")
            if not (isinstance(res, dict) and isinstance(res.get("sha256"), str)):
                return [("result_collecting", cause), ("needs_attention", "succeeded job without a result description")], {}
            return [("result_collecting", cause)], dict(expected=canonical_json(res), attempt=0, next_due=now_ms())
        if s in ("failed", "expired"):
            err = job.get("error") or {}
            return [("failed", cause)], dict(reason="job %s%s" % (s, ": %s" % err.get("code") if err.get("code") else ""))
        return [("cancelled", cause)], dict(reason="provider reported the job cancelled")

    def read_job(self):
        o = self.send("GET", "/v1/jobs/%s" % urllib.parse.quote(self.row["remote_job_id"], safe=""))
        job = job_of(o.json) if isinstance(o, Answer) and o.status == 200 else None
        if job and job["job_id"] != self.row["remote_job_id"]:
            self.commit([("needs_attention", "status read of %s answered job %s" % (self.row["remote_job_id"], job["job_id"]))])
            return o, "stop"
        if isinstance(o, Answer) and o.status == 404:
            self.commit([("needs_attention", "provider no longer knows job %s" % self.row["remote_job_id"])])
            return o, "stop"
        return o, job

    def poll(self, deadline, on_deadline):
        if self.held(deadline, on_deadline):
            return
        past = now_ms() >= deadline
        o, job = self.read_job()
        if job == "stop":
            return
        now = now_ms()
        if job and job["state"] in TERMINAL_JOB_STATES:
            moves, patch = self.terminal(job, "job %s" % job["state"])
            return self.commit(moves, **patch)
        if past:
            what = "job still %s" % job["state"] if job else "last read got " + o.describe()
            return self.commit([(on_deadline, "deadline passed; %s" % what)])
        if job:
            moves = [("observing", "job %s" % job["state"])] if self.row["state"] == "accepted" else []
            nxt = now + max(backoff(self.row["attempt"]), o.retry_after_ms() or 0)   # Retry-After on 200: advice
            return self.commit(moves, attempt=self.row["attempt"] + 1, next_due=min(nxt, deadline))
        self.later(o, deadline)

    def cancel(self):
        r = self.row
        deadline = self.cancel_deadline()
        if self.held(deadline, "cancellation_unconfirmed"):
            return
        if r["cancel_status"] in ("in_flight", "ambiguous"):
            # An earlier attempt may have reached the provider: look before asking again.
            o, job = self.read_job()
            if job == "stop":
                return
            if job and job["state"] in TERMINAL_JOB_STATES:
                moves, patch = self.terminal(job, "job %s after the cancel was asked" % job["state"])
                return self.commit(moves, cancel_status="answered", **patch)
            if job and (job["state"] == "cancelling" or job.get("cancel_requested_at")):
                return self.commit([("cancelling", "an earlier cancel attempt reached the provider")], cancel_status="answered",
                                   attempt=0, next_due=min(now_ms() + max(BASE_MS, o.retry_after_ms() or 0), deadline))
            if not job:
                if now_ms() >= deadline:
                    return self.commit([("cancellation_unconfirmed", "cancel deadline passed; last read got " + o.describe())])
                return self.later(o, deadline)
        if now_ms() >= deadline:
            return self.commit([("cancellation_unconfirmed", "cancel deadline passed before the cancel could be confirmed")])
        self.commit(cancel_status="in_flight", cancel_sends=r["cancel_sends"] + 1, next_due=now_ms() + 2 * self.w.lease_ms)
        reason = json.loads(r["cancel"])["reason"]
        o = self.send("POST", "/v1/jobs/%s/cancel" % urllib.parse.quote(r["remote_job_id"], safe=""),
                      canonical_json({"reason": reason}))
        now = now_ms()
        if isinstance(o, Answer) and o.status == 202:
            return self.commit([("cancelling", "provider accepted the cancel request")], cancel_status="answered", attempt=0,
                               next_due=min(now + max(BASE_MS, o.retry_after_ms() or 0), deadline))
        if isinstance(o, Answer) and o.status == 409 and o.code == "job_terminal" and job_of((o.json or {}).get("job")):
            job = job_of(o.json["job"])
            moves, patch = self.terminal(job, "cancel lost the race: job already %s" % job["state"])
            return self.commit(moves, cancel_status="answered", **patch)
        if isinstance(o, Answer) and o.status == 404:
            return self.commit([("needs_attention", "provider no longer knows job %s" % r["remote_job_id"])])
        self.later(o, deadline, cancel_status="ambiguous" if ambiguous(o) else "refused")

    def collect(self):
        r = self.row
        if self.held(None, None):
            return
        expected = json.loads(r["expected"])
        url = expected.get("url") or ""
        path = url if url.startswith("/") and not url.startswith("//") else "/v1/jobs/%s/results" % urllib.parse.quote(r["remote_job_id"], safe="")
        o = self.send("GET", path)
        if isinstance(o, Answer) and o.status == 200:
            result, why = verify_results(o, expected)
            if result:
                return self.commit([("succeeded", "results fetched and verified")], result=canonical_json(result))
            return self.commit([("result_validation_failed", why)], reason=why)
        if isinstance(o, Answer) and o.status == 410:
            return self.commit([("result_unavailable", "provider says the results are gone (%s)" % o.describe())], reason="results_gone")
        if isinstance(o, Answer) and o.status in (404, 409) and o.code in ("job_not_found", "job_not_succeeded"):
            return self.commit([("needs_attention", "a succeeded job's results answered %s" % o.describe())])
        if now_ms() >= r["result_deadline_at"] and r["attempt"] + 1 >= MIN_COLLECT_ATTEMPTS:
            return self.commit([("result_unavailable", "results could not be fetched by the deadline (last: %s)" % o.describe())])
        self.later(o)


class Worker:
    def __init__(self, env):
        self.worker_id = env.get("JOBPROOF_WORKER_ID") or "worker"
        self.lease_ms = int(env.get("JOBPROOF_LEASE_MS") or 1000)
        self.store = Store(env["JOBPROOF_STATE"], worker=True)
        self.seen = set()
        self.state_dir = env["JOBPROOF_STATE"]
        timeout_s = max(0.1, min(self.lease_ms * 0.5, 5000) / 1000)   # per request, well inside the lease
        self.http = Http(env["JOBPROOF_PROVIDER_URL"], env.get("JOBPROOF_TOKEN", ""), self.worker_id, timeout_s)
        self.webhook_url = None
        port = env.get("JOBPROOF_WEBHOOK_PORT")
        if port:
            try:
                start_webhook_listener(int(port), env.get("JOBPROOF_WEBHOOK_SECRET", ""), lambda: Store(self.state_dir, worker=True))
                self.webhook_url = "http://127.0.0.1:%s/" % port
            except OSError as e:
                print("%s: webhooks off, cannot listen on %s: %s" % (self.worker_id, port, e), file=sys.stderr)
        self.stopping = False

    def due(self, row, now):
        if now < row["not_before"] and not self.deadline_passed(row, now):
            return False
        if row["cancel"] and (row["state"] in ("accepted", "observing") or
                              (row["state"] == "create_pending" and not row["create_open"])):
            return True
        return now >= row["next_due"]

    @staticmethod
    def deadline_passed(row, now):
        """A deadline that ends an observing state even during a Retry-After hold (without a request)."""
        if row["state"] in ("accepted", "observing"):
            return now >= row["result_deadline_at"]
        if row["state"] in ("cancel_requested", "cancelling"):
            return now >= min(row["result_deadline_at"], row["cancel_deadline_at"])
        return False

    def run(self):
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        signal.signal(signal.SIGINT, lambda *_: setattr(self, "stopping", True))
        held, renewed, lost = {}, {}, {}
        # A worker that lost a lease (it was paused or starved past it) keeps its hands off that operation for two
        # lease periods, so that a live worker takes it over rather than the stale one grabbing it back on resume.
        cooldown = 2 * self.lease_ms
        tick = max(0.01, min(0.05, self.lease_ms / 10000))
        while not self.stopping:
            self.store.import_intake(self.seen)
            rows = self.store.working()
            if not rows:
                return 0   # every operation is final
            now = now_ms()
            for row in rows:
                op = row["operation_id"]
                if op in held:
                    if now - renewed[op] >= self.lease_ms / 4:
                        if self.store.renew(op, self.worker_id, held[op], self.lease_ms):
                            renewed[op] = now
                        else:
                            del held[op]
                            lost[op] = now_ms()
                elif (row["lease_owner"] is None or row["lease_expires"] <= now) and now - lost.get(op, -cooldown) >= cooldown:
                    token = self.store.acquire(op, self.worker_id, self.lease_ms)
                    if token is not None:
                        held[op], renewed[op] = token, now
            for op in list(held):
                if self.stopping:
                    break
                row = self.store.get(op)
                if row["state"] in FINAL or row["lease_owner"] != self.worker_id or row["lease_token"] != held[op]:
                    del held[op]
                    continue
                if not self.due(row, now_ms()):
                    continue
                try:
                    Step(self, row, held[op]).run()
                    renewed[op] = now_ms()
                except LeaseLost:
                    held.pop(op, None)
                    lost[op] = now_ms()
            time.sleep(tick)
        for op, token in held.items():
            self.store.release(op, self.worker_id, token)
        return 0
