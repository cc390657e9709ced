"""Agent tasks (tasks-api.md) through the task verbs of client-protocol.md: task submit | task work | task show.

State lives in $JOBPROOF_STATE/tasks.db (WAL). Every state change is one transaction that writes the record and
appends its history entry, so a worker killed at any point is carried on by the next one from the record:
- the create key is recorded at submit, before anything is sent, and replayed on every create retry;
- the apply key is generated once, recorded in the same transaction as the decision to apply, before the first apply,
  and replayed on every retry (a lost apply answer is ambiguous: the change may have happened);
- only a current approval counts: task `approved`, review `approved`, bound to the current proposal's version and
  SHA-256, by someone other than the initiator. A redraft (new proposal version) drops the approval relied on.
"""
import json
import os
import secrets
import sqlite3
import sys
import time

from protocol import canonical_json, iso
from provider import Http, ambiguous
from store import invoked_ms, now_ms

SCHEMA = """
CREATE TABLE IF NOT EXISTS task_ops (
  task_op_id TEXT PRIMARY KEY, request TEXT NOT NULL,
  object_ref TEXT NOT NULL, object_version INTEGER NOT NULL, input TEXT NOT NULL,
  create_key TEXT NOT NULL UNIQUE, apply_key TEXT UNIQUE, trace_id TEXT NOT NULL,
  task_id TEXT, state TEXT NOT NULL, proposal_version INTEGER, approval TEXT, application TEXT, reason TEXT,
  create_attempts INTEGER NOT NULL DEFAULT 0, apply_attempts INTEGER NOT NULL DEFAULT 0, read_failures INTEGER NOT NULL DEFAULT 0,
  deadline_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS task_history (
  task_op_id TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL,
  from_state TEXT, to_state TEXT NOT NULL, cause TEXT NOT NULL, extra TEXT NOT NULL,
  PRIMARY KEY (task_op_id, seq)
)
"""
FINAL = ("applied", "rejected", "failed", "apply_failed", "needs_attention")
REMOTE_FINAL = {"applied": "applied", "rejected": "rejected", "failed": "failed", "apply_failed": "apply_failed"}
SUBMIT_FIELDS = ("task_op_id", "object_ref", "object_version", "input", "deadline_ms")
JSON_COLS = ("input", "approval", "application")


def usable_approval(task):
    """The approval to apply under, or None: only a current one counts (see the module notes)."""
    proposal = (task.get("result") or {}).get("proposal") or {}
    review = task.get("review") or {}
    if task.get("state") != "approved" or not proposal or review.get("decision") != "approved":
        return None
    if review.get("proposal_version") != proposal.get("proposal_version") or review.get("proposal_sha256") != proposal.get("sha256"):
        return None
    if review.get("reviewer") == task.get("initiator"):
        return None
    return {k: review.get(k) for k in ("decision", "reviewer", "proposal_version", "proposal_sha256")}


class TaskStore:
    def __init__(self, state_dir):
        os.makedirs(state_dir, exist_ok=True)
        self.db = sqlite3.connect(os.path.join(state_dir, "tasks.db"), timeout=10, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA busy_timeout = 10000")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("BEGIN IMMEDIATE")
        for stmt in SCHEMA.split(";"):
            self.db.execute(stmt)
        self.db.execute("COMMIT")

    def _append(self, op_id, frm, to, cause, actor, extra):
        seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM task_history WHERE task_op_id = ?", (op_id,)).fetchone()[0]
        self.db.execute("INSERT INTO task_history VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (op_id, seq, iso(now_ms()), actor, frm, to, cause, json.dumps(extra or {})))

    def submit(self, req, actor):
        """'recorded', 'same' (nothing changed) or 'changed' (the id exists with another request)."""
        request = canonical_json({k: req[k] for k in ("object_ref", "object_version", "input")})
        self.db.execute("BEGIN IMMEDIATE")
        try:
            row = self.db.execute("SELECT request FROM task_ops WHERE task_op_id = ?", (req["task_op_id"],)).fetchone()
            if row is not None:
                self.db.execute("COMMIT")
                return "same" if row["request"] == request else "changed"
            self.db.execute(
                "INSERT INTO task_ops (task_op_id, request, object_ref, object_version, input, create_key, trace_id, state, deadline_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 'create_pending', ?)",
                (req["task_op_id"], request, req["object_ref"], req["object_version"], canonical_json(req["input"]),
                 "tcreate_" + secrets.token_hex(16), "tr_" + secrets.token_hex(8), invoked_ms() + req["deadline_ms"]))
            self._append(req["task_op_id"], None, "create_pending", "submit", actor, {})
            self.db.execute("COMMIT")
            return "recorded"
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def get(self, op_id):
        row = self.db.execute("SELECT * FROM task_ops WHERE task_op_id = ?", (op_id,)).fetchone()
        if row is None:
            return None
        d = dict(row)
        for k in JSON_COLS:
            d[k] = json.loads(d[k]) if d[k] is not None else None
        return d

    def open_ids(self):
        marks = ",".join("?" * len(FINAL))
        return [r[0] for r in self.db.execute("SELECT task_op_id FROM task_ops WHERE state NOT IN (%s) ORDER BY rowid" % marks, FINAL)]

    def change(self, op_id, actor, to=None, cause=None, extra=None, **patch):
        """Patch the record and, with `to`, append the history entry, in one transaction."""
        for k in JSON_COLS:
            if k in patch and patch[k] is not None:
                patch[k] = json.dumps(patch[k])
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cur = self.db.execute("SELECT state FROM task_ops WHERE task_op_id = ?", (op_id,)).fetchone()["state"]
            if cur in FINAL:
                raise RuntimeError("task operation %s is final (%s)" % (op_id, cur))
            if to is not None:
                patch["state"] = to
            if patch:
                sets = ", ".join("%s = ?" % k for k in patch)
                self.db.execute("UPDATE task_ops SET %s WHERE task_op_id = ?" % sets, (*patch.values(), op_id))
            if to is not None:
                self._append(op_id, cur, to, cause, actor, extra)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def show(self, op_id):
        r = self.get(op_id)
        if r is None:
            return None
        history = []
        for h in self.db.execute("SELECT * FROM task_history WHERE task_op_id = ? ORDER BY seq", (op_id,)):
            entry = {"at": h["at"], "actor": h["actor"], "from": h["from_state"], "to": h["to_state"], "cause": h["cause"]}
            entry.update(json.loads(h["extra"]))
            history.append(entry)
        return {"task_op_id": r["task_op_id"], "state": r["state"], "task_id": r["task_id"], "object_ref": r["object_ref"],
                "object_version": r["object_version"], "create_key": r["create_key"], "apply_key": r["apply_key"],
                "trace_id": r["trace_id"], "application": r["application"], "reason": r["reason"], "history": history}


def backoff(attempt):
    return min(8000, 250 * 2 ** min(attempt, 10))


class TaskWorker:
    """One worker process: every open task operation, one step at a time each, until all are final."""
    REVIEW_POLL_MS = 500
    MAX_CREATE, MAX_APPLY, MAX_READ_FAILURES = 8, 8, 20

    def __init__(self, env):
        self.store = TaskStore(env["JOBPROOF_STATE"])
        self.actor = env.get("JOBPROOF_WORKER_ID") or "task-worker"
        self.http = Http(env["JOBPROOF_PROVIDER_URL"], env["JOBPROOF_TOKEN"], self.actor, 10)
        self.due = {}

    def run(self):
        while True:
            ids = self.store.open_ids()
            if not ids:
                return 0
            now = now_ms()
            for op_id in ids:
                if self.due.get(op_id, 0) <= now:
                    self.due[op_id] = now_ms() + self.step(self.store.get(op_id))
            time.sleep(max(0.02, (min(self.due.get(i, 0) for i in ids) - now_ms()) / 1000))

    def move(self, row, to, cause, extra=None, **patch):
        self.store.change(row["task_op_id"], self.actor, to, cause, extra, **patch)
        return 0

    def step(self, row):
        if now_ms() > row["deadline_at"] and row["state"] != "applying":
            return self.move(row, "needs_attention", "deadline passed in " + row["state"], reason="deadline passed")
        return {"create_pending": self.create, "waiting": self.observe, "applying": self.apply}[row["state"]](row)

    # ---- create -------------------------------------------------------------------------------------------------

    def create(self, row):
        attempt = row["create_attempts"] + 1
        self.store.change(row["task_op_id"], self.actor, create_attempts=attempt)
        body = canonical_json({"type": "propose_update", "object_ref": row["object_ref"], "object_version": row["object_version"], "input": row["input"]})
        a = self.http.call("POST", "/v1/tasks", row["trace_id"], body=body, key=row["create_key"])
        if not ambiguous(a) and a.status in (200, 202) and isinstance((a.json or {}).get("task_id"), str):
            return self.move(row, "waiting", "created", {"attempt": attempt}, task_id=a.json["task_id"])
        if ambiguous(a) or a.status == 429 or a.code == "idempotency_request_in_progress":
            if attempt >= self.MAX_CREATE:
                return self.move(row, "needs_attention", "create unresolved after retries (same key every time)", reason="create unresolved")
            return max(backoff(attempt - 1), a.retry_after_ms() or 0)
        return self.move(row, "needs_attention", "create refused: " + a.describe(), reason="create refused: " + a.describe())

    # ---- observe ------------------------------------------------------------------------------------------------

    def finish(self, row, task, cause):
        to = REMOTE_FINAL.get(task.get("state"))
        if to is None:
            return False
        err = task.get("error") or {}
        self.move(row, to, cause, {"task_state": task.get("state")}, application=task.get("application"), reason=err.get("code"))
        return True

    def observe(self, row):
        a = self.http.call("GET", "/v1/tasks/" + row["task_id"], row["trace_id"])
        if ambiguous(a) or a.status == 429:
            failures = row["read_failures"] + 1
            if failures >= self.MAX_READ_FAILURES:
                return self.move(row, "needs_attention", "task unreadable", reason="task unreadable")
            self.store.change(row["task_op_id"], self.actor, read_failures=failures)
            return max(backoff(failures - 1), a.retry_after_ms() or 0)
        if a.status != 200 or not isinstance(a.json, dict):
            return self.move(row, "needs_attention", "task read refused: " + a.describe(), reason="task read refused")
        task = a.json
        if self.finish(row, task, "task is " + task["state"]):
            return 0
        proposal = (task.get("result") or {}).get("proposal") or {}
        pv = proposal.get("proposal_version")
        if pv is not None and pv != row["proposal_version"]:
            cause = "draft ready (proposal %d)" % pv if row["proposal_version"] is None else \
                "redraft seen (proposal %d -> %d): waiting for a new approval" % (row["proposal_version"], pv)
            self.move(row, "waiting", cause, {"proposal_version": pv}, proposal_version=pv, approval=None, read_failures=0)
        approval = usable_approval(task)
        if approval is not None:
            key = row["apply_key"] or "tapply_" + secrets.token_hex(16)
            current = {"proposal_version": pv, "sha256": proposal.get("sha256"), "initiator": task.get("initiator")}
            return self.move(row, "applying", "approval by %s of proposal %s taken as current" % (approval["reviewer"], approval["proposal_version"]),
                             {"approval": approval, "current": current, "apply_key": key, "proposal_version": pv},
                             approval=approval, apply_key=key)
        if task.get("state") in ("queued", "running"):
            return a.retry_after_ms() or self.REVIEW_POLL_MS
        return max(a.retry_after_ms() or 0, self.REVIEW_POLL_MS)

    # ---- apply --------------------------------------------------------------------------------------------------

    def apply(self, row):
        attempt = row["apply_attempts"] + 1
        if attempt > self.MAX_APPLY:
            return self.move(row, "needs_attention", "apply unresolved after retries", reason="apply unresolved")
        self.store.change(row["task_op_id"], self.actor, apply_attempts=attempt)
        a = self.http.call("POST", "/v1/tasks/%s/apply" % row["task_id"], row["trace_id"], body="{}", key=row["apply_key"])
        extra = {"apply_key": row["apply_key"], "attempt": attempt, "status": a.status, "code": a.code}
        if ambiguous(a) or a.status == 429 or a.code == "idempotency_request_in_progress":
            # The change may have happened: retry with the same key; a replay returns the application.
            self.move(row, "applying", "apply answer lost or ambiguous: retry with the same apply key", extra)
            return max(backoff(attempt - 1), a.retry_after_ms() or 0)
        body = a.json if isinstance(a.json, dict) else {}
        if a.status == 200 and body.get("state") == "applied":
            replayed = a.headers.get("idempotent-replayed") == "true"
            self.finish(row, body, "applied (replayed answer to the same apply key)" if replayed else "applied")
            return 0
        if a.code == "already_applied":
            r = self.http.call("GET", "/v1/tasks/" + row["task_id"], row["trace_id"])
            task = r.json if not ambiguous(r) and r.status == 200 else body.get("task") or {}
            return 0 if self.finish(row, task, "already applied: reporting the application") else self.REVIEW_POLL_MS
        if a.code in ("approval_required", "stale_object_version"):
            return self.move(row, "waiting", "apply refused (%s): waiting for a current approval" % a.code, extra, approval=None)
        if a.code in ("apply_failed", "invalid_state"):
            if self.finish(row, body.get("task") or {}, "apply refused: " + a.code):
                return 0
            if a.code == "apply_failed":
                return self.move(row, "apply_failed", "apply failed at the provider", extra, reason="apply_failed")
            return self.move(row, "waiting", "apply refused (invalid_state)", extra, approval=None)
        return self.move(row, "needs_attention", "apply refused: " + a.describe(), extra, reason="apply refused: " + a.describe())


def read_submit():
    try:
        v = json.loads(sys.stdin.read())
    except ValueError:
        return None
    if not isinstance(v, dict) or set(v) != set(SUBMIT_FIELDS):
        return None
    ok = (isinstance(v["task_op_id"], str) and 1 <= len(v["task_op_id"]) <= 200 and isinstance(v["object_ref"], str) and v["object_ref"]
          and isinstance(v["object_version"], int) and not isinstance(v["object_version"], bool) and v["object_version"] >= 1
          and isinstance(v["input"], dict) and isinstance(v["deadline_ms"], int) and not isinstance(v["deadline_ms"], bool) and v["deadline_ms"] > 0)
    return v if ok else None


def main(args, env, refuse):
    """`task submit`, `task show ID`, `task work`: exit codes as for the job verbs (0 ok, 2 refused, 3 changed)."""
    verb, rest = (args[0] if args else ""), args[1:]
    actor = env.get("JOBPROOF_WORKER_ID") or "cli"
    if verb == "submit" and not rest:
        req = read_submit()
        if req is None:
            return refuse(2, "task submit needs a JSON object with exactly %s" % ", ".join(SUBMIT_FIELDS))
        if TaskStore(env["JOBPROOF_STATE"]).submit(req, actor) == "changed":
            return refuse(3, "task operation %s exists with a different request; a changed request is a new operation" % req["task_op_id"])
        return 0
    if verb == "show" and len(rest) == 1:
        rec = TaskStore(env["JOBPROOF_STATE"]).show(rest[0])
        if rec is None:
            return refuse(2, "unknown task operation %s" % rest[0])
        print(json.dumps(rec))
        return 0
    if verb == "work" and not rest:
        for k in ("JOBPROOF_PROVIDER_URL", "JOBPROOF_TOKEN"):
            if not env.get(k):
                return refuse(2, "%s is not set" % k)
        return TaskWorker(env).run()
    return refuse(2, "usage: client.py task submit | task work | task show TASK_OP_ID")
