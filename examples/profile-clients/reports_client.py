#!/usr/bin/env python3
"""A durable client of the seed's report API (examples/profiles/reports.json), in Python, standard library only.

    reports_client.py submit        < {"operation_id", "kind", "input", "create_deadline_ms", "result_deadline_ms"}
    reports_client.py cancel OPID   < {"actor", "reason", "cancel_deadline_ms"}
    reports_client.py work
    reports_client.py show OPID

`input` is the request body POST /v1/reports takes ({"account", "range", "format", "client_ref"}); the API is served
at JOBPROOF_BASE_URL (JOBPROOF_PROVIDER_URL plus the profile's prefix). Everything durable -- the SQLite store, the
leases and fencing tokens, the operation states, the worker loop -- is the example Python client's
(examples/python-client), unchanged; only the requests and the reading of answers are this API's:

- POST /v1/reports with an Idempotency-Key stored before the first attempt: 202 {"job_id", "state"} (200 when the
  report was made inside the request).
- After a lost create answer: GET /v1/reports?client_ref=... finds the job the create made (the view shows no key).
- GET /v1/reports/{id}: {"job_id", "state", "progress", "result_url", "error"}; no result digest in the view.
- POST /v1/reports/{id}/cancel: 202 with the view; a job already over answers 409 (problem+json, no job in it),
  so the job is read to learn how it ended.
- GET /v1/reports/{id}/result: NDJSON with Content-Digest, verified with every line before anything succeeds.
- Errors are problem+json: the code is the last segment of `type`.
"""
import hashlib
import json
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python-client"))

import client  # noqa: E402
import worker  # noqa: E402
from protocol import canonical_json  # noqa: E402
from provider import Answer, ambiguous, job_of, verify_results  # noqa: E402
from store import now_ms  # noqa: E402

BASE_PATH = urllib.parse.urlsplit(os.environ.get("JOBPROOF_BASE_URL") or "http://x/profiles/reports").path.rstrip("/")


def code_of(o):
    """The problem's code: the last segment of its `type` URI."""
    t = o.json.get("type") if isinstance(o, Answer) and isinstance(o.json, dict) else None
    return t.rstrip("/").rsplit("/", 1)[-1] if isinstance(t, str) else None


def quote(v):
    return urllib.parse.quote(v, safe="")


class ReportsStep(worker.Step):
    def send(self, method, path, body=None, key=None):
        return super().send(method, BASE_PATH + path, body, key)

    def client_ref(self):
        return json.loads(self.row["input"]).get("client_ref") or self.row["operation_id"]

    def send_create(self, known_job, pre_moves):
        r = self.row
        body = r["create_body"]
        if body is None:
            b = json.loads(r["input"])
            b["client_ref"] = self.client_ref()
            body = canonical_json(b)
        # The attempt is durable before the request leaves, and only if no cancel was recorded meanwhile.
        if self.w.store.cancel_waiting(self.op) or not self.commit(
                pre_moves, require="cancel IS NULL", create_body=body, create_attempts=r["create_attempts"] + 1,
                last_create_at=now_ms(), create_open=1, next_due=now_ms() + 2 * self.w.lease_ms):
            return
        o = self.send("POST", "/v1/reports", body, r["idempotency_key"])
        # 202 while the report is made; 200 when it was already made inside the request (a quick report).
        if isinstance(o, Answer) and o.status in (200, 202) and isinstance(o.json, dict) and isinstance(o.json.get("job_id"), str):
            job_id = o.json["job_id"]
            if known_job is not None and known_job != job_id:
                self.commit([("needs_attention", "replayed create answered job %s, but the lookup shows job %s" % (job_id, known_job))],
                            create_open=0, remote_job_id=known_job, conflicting_job_id=job_id,
                            reason="provider answered a replayed create with a different job id")
                return
            self.commit([("accepted", "provider accepted the create (%d): job %s" % (o.status, job_id))], create_open=0,
                        remote_job_id=job_id, attempt=0, next_due=now_ms() + max(worker.BASE_MS, o.retry_after_ms() or 0))
            return
        if ambiguous(o) or (o.status == 409 and code_of(o) == "idempotency_request_in_progress"):
            self.commit([("create_unknown", "create outcome unknown: %s" % o.describe())], create_open=0)
            return self.later(o)
        if o.status == 429:   # refused before it executed: the same key again, after the wait
            return self.later(o, create_open=0)
        self.commit([("failed", "create refused: %s" % o.describe())], create_open=0, reason="create refused: " + o.describe())

    def lookup(self, by_ref=True):
        """The job our create made, found by our client_ref: a job, None, ("conflict", ids) or the answer that could not tell."""
        o = self.send("GET", "/v1/reports?client_ref=%s" % quote(self.client_ref()))
        if not (isinstance(o, Answer) and o.status == 200 and isinstance(o.json, dict) and isinstance(o.json.get("data"), list)):
            return o
        jobs = [j for j in map(job_of, o.json["data"]) if j]
        ids = sorted({j["job_id"] for j in jobs})
        if len(ids) > 1:
            return ("conflict", ids)
        return dict(jobs[0], found_by="client_ref") if ids else None

    def terminal(self, job, cause):
        if job["state"] != "succeeded":
            return super().terminal(job, cause)
        url = job.get("result_url")
        if not isinstance(url, str):
            return [("result_collecting", cause), ("needs_attention", "succeeded job without a result_url")], {}
        return [("result_collecting", cause)], dict(expected=canonical_json({"url": url}), attempt=0, next_due=now_ms())

    def read_job(self):
        o = self.send("GET", "/v1/reports/%s" % quote(self.row["remote_job_id"]))
        job = job_of(o.json) if isinstance(o, Answer) and o.status == 200 else None
        if job and job["job_id"] != self.row["remote_job_id"]:
            self.commit([("needs_attention", "status read of %s answered job %s" % (self.row["remote_job_id"], job["job_id"]))])
            return o, "stop"
        if isinstance(o, Answer) and o.status == 404:
            self.commit([("needs_attention", "provider no longer knows job %s" % self.row["remote_job_id"])])
            return o, "stop"
        return o, job

    def cancel(self):
        r = self.row
        deadline = self.cancel_deadline()
        if self.held(deadline, "cancellation_unconfirmed"):
            return
        if r["cancel_status"] in ("in_flight", "ambiguous", "refused"):
            # An earlier attempt may have reached the provider, or the job was already over: look before asking again.
            o, job = self.read_job()
            if job == "stop":
                return
            if job and job["state"] in worker.TERMINAL_JOB_STATES:
                moves, patch = self.terminal(job, "job %s after the cancel was asked" % job["state"])
                return self.commit(moves, cancel_status="answered", **patch)
            if job and job["state"] == "cancelling":
                return self.commit([("cancelling", "an earlier cancel attempt reached the provider")], cancel_status="answered",
                                   attempt=0, next_due=min(now_ms() + max(worker.BASE_MS, o.retry_after_ms() or 0), deadline))
            if not job:
                if now_ms() >= deadline:
                    return self.commit([("cancellation_unconfirmed", "cancel deadline passed; last read got " + o.describe())])
                return self.later(o, deadline)
        if now_ms() >= deadline:
            return self.commit([("cancellation_unconfirmed", "cancel deadline passed before the cancel could be confirmed")])
        self.commit(cancel_status="in_flight", cancel_sends=r["cancel_sends"] + 1, next_due=now_ms() + 2 * self.w.lease_ms)
        o = self.send("POST", "/v1/reports/%s/cancel" % quote(r["remote_job_id"]), "{}")
        if isinstance(o, Answer) and o.status == 202:
            return self.commit([("cancelling", "provider accepted the cancel request")], cancel_status="answered", attempt=0,
                               next_due=min(now_ms() + max(worker.BASE_MS, o.retry_after_ms() or 0), deadline))
        if isinstance(o, Answer) and o.status == 404:
            return self.commit([("needs_attention", "provider no longer knows job %s" % r["remote_job_id"])])
        # 409 job_terminal: the job ended first; the next turn reads how (the refusal carries no job).
        refused = isinstance(o, Answer) and o.status == 409 and code_of(o) == "job_terminal"
        self.later(o, deadline, cancel_status="refused" if refused else "ambiguous" if ambiguous(o) else "refused")

    def collect(self):
        r = self.row
        if self.held(None, None):
            return
        path = urllib.parse.urlsplit(json.loads(r["expected"])["url"]).path
        o = super(ReportsStep, self).send("GET", path)   # result_url names the full path already
        if isinstance(o, Answer) and o.status == 200:
            # The view announces no digest or counts: Content-Digest and every line are what can be checked.
            expected = {"sha256": hashlib.sha256(o.body).hexdigest()}
            lines = [l for l in o.body.decode("utf-8", "replace").split("\n") if l]
            expected["items_total"] = len(lines)
            expected["items_failed"] = sum(1 for l in lines if '"status":"failed"' in l)
            result, why = verify_results(o, expected)
            if result:
                return self.commit([("succeeded", "results fetched and verified")], result=canonical_json(result))
            return self.commit([("result_validation_failed", why)], reason=why)
        if isinstance(o, Answer) and o.status == 410:
            return self.commit([("result_unavailable", "provider says the results are gone (%s)" % o.describe())], reason="results_gone")
        if isinstance(o, Answer) and o.status in (404, 409):
            return self.commit([("needs_attention", "a succeeded job's results answered %s" % o.describe())])
        if now_ms() >= r["result_deadline_at"] and r["attempt"] + 1 >= worker.MIN_COLLECT_ATTEMPTS:
            return self.commit([("result_unavailable", "results could not be fetched by the deadline (last: %s)" % o.describe())])
        self.later(o)


worker.Step = ReportsStep   # the worker loop runs this API's steps

if __name__ == "__main__":
    sys.exit(client.main(sys.argv[1:]))
