"""Durable state: one SQLite file in $JOBPROOF_STATE, shared by every process of this client.

WAL + busy_timeout so several workers and the CLI can use it at once. Every state change is one
BEGIN IMMEDIATE transaction that first checks the caller still holds the operation's lease (owner and
fencing token): a worker whose lease was taken over cannot write, however long it was paused.
"""
import datetime
import json
import os
import secrets
import sqlite3
import time
from contextlib import contextmanager

from protocol import ALLOWED, FINAL, WORKING, canonical_json, fingerprint, iso

INTAKE_SCHEMA = """
CREATE TABLE IF NOT EXISTS submitted (
  operation_id TEXT PRIMARY KEY,
  request TEXT NOT NULL,                 -- canonical JSON of the submit request: "same request" compares this
  kind TEXT NOT NULL, input TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  trace_id TEXT NOT NULL UNIQUE,
  submitted_at INTEGER NOT NULL, create_deadline_at INTEGER NOT NULL, result_deadline_at INTEGER NOT NULL,
  at TEXT NOT NULL, actor TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cancels (operation_id TEXT PRIMARY KEY, intent TEXT NOT NULL, deadline_at INTEGER NOT NULL)
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS ops (
  operation_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL, input TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  trace_id TEXT NOT NULL UNIQUE,
  submitted_at INTEGER NOT NULL, create_deadline_at INTEGER NOT NULL, result_deadline_at INTEGER NOT NULL,
  state TEXT NOT NULL,
  remote_job_id TEXT, conflicting_job_id TEXT, reason TEXT,
  create_body TEXT,                      -- fixed at the first create attempt, resent byte for byte
  create_attempts INTEGER NOT NULL DEFAULT 0, last_create_at INTEGER,
  create_open INTEGER NOT NULL DEFAULT 0,  -- 1 while a create is on its way: found set after a crash = unknown outcome
  cancel TEXT, cancel_deadline_at INTEGER,
  cancel_status TEXT,                    -- NULL | in_flight | answered | ambiguous | refused
  cancel_sends INTEGER NOT NULL DEFAULT 0,
  expected TEXT,                         -- the job's result description, to verify the body against
  result TEXT,                           -- {sha256, items_total, items_failed} once verified
  attempt INTEGER NOT NULL DEFAULT 0,
  next_due INTEGER NOT NULL DEFAULT 0,   -- when to act next (backoff, advice, deadlines, or a webhook pulls it in)
  not_before INTEGER NOT NULL DEFAULT 0, -- a binding Retry-After: nothing is sent for the operation before it
  lease_owner TEXT, lease_token INTEGER NOT NULL DEFAULT 0, lease_expires INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS history (
  operation_id TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, at_ms INTEGER NOT NULL,
  actor TEXT NOT NULL, from_state TEXT, to_state TEXT NOT NULL, cause TEXT NOT NULL,
  lease_token INTEGER,                   -- the fencing token the entry was written under (NULL for submit)
  PRIMARY KEY (operation_id, seq)
);
CREATE TABLE IF NOT EXISTS webhook_seen (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ops_remote ON ops (remote_job_id)
"""

PATCHABLE = {
    "remote_job_id", "conflicting_job_id", "reason", "create_body", "create_attempts", "last_create_at", "create_open",
    "cancel_status", "cancel_sends", "expected", "result", "attempt", "next_due", "not_before",
}


def now_ms():
    return int(time.time() * 1000)


def datetime_ms(at):
    """Epoch ms of an RFC 3339 UTC time written by iso()."""
    return datetime.datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp() * 1000


def invoked_ms():
    """When this command was invoked (the process's start time, on Linux), else now. Deadlines count from the
    moment the caller asked, not from when a slow interpreter got round to running our first line."""
    now = now_ms()
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rpartition(")")[2].split()[19])
        with open("/proc/uptime") as f:
            uptime_s = float(f.read().split()[0])
        started = now - int((uptime_s - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000)
        return started if now - 60_000 < started <= now else now
    except (OSError, ValueError, IndexError):
        return now


def _connect(path):
    db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA busy_timeout = 10000")
    return db


def _has_table(db, name):
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


class Store:
    """Two SQLite files. intake.db is written only by the short CLI verbs (submit, cancel) and only read by
    workers; client.db is written only by workers. A worker frozen by SIGSTOP inside a write transaction keeps
    SQLite's write lock until it is resumed, so the CLI must never need client.db's lock: `cancel` (or `submit`)
    called while a worker is paused would otherwise wait for a resume that only its caller can send."""

    def __init__(self, state_dir, worker=False):
        os.makedirs(state_dir, exist_ok=True)
        self.dir, self.worker = state_dir, worker
        self._intake = None
        self.db = None
        path = os.path.join(state_dir, "client.db")
        if worker:
            self.db = _connect(path)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")
            if not _has_table(self.db, "history"):
                with self.tx():
                    for stmt in SCHEMA.split(";"):
                        self.db.execute(stmt)
            elif "lease_token" not in [c["name"] for c in self.db.execute("PRAGMA table_info(history)").fetchall()]:
                self.db.execute("ALTER TABLE history ADD COLUMN lease_token INTEGER")
        elif os.path.exists(path):
            self.db = _connect(path)
            if not _has_table(self.db, "history"):
                self.db = None

    def intake(self, create=False):
        if self._intake is None:
            path = os.path.join(self.dir, "intake.db")
            if not create and not os.path.exists(path):
                return None
            db = _connect(path)
            if create:
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = FULL")
                if not _has_table(db, "cancels"):
                    db.execute("BEGIN IMMEDIATE")
                    for stmt in INTAKE_SCHEMA.split(";"):
                        db.execute(stmt)
                    db.execute("COMMIT")
            elif not _has_table(db, "cancels"):
                return None
            self._intake = db
        return self._intake

    @contextmanager
    def tx(self, db=None):
        db = db or self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # ---- CLI verbs (intake.db only) -------------------------------------------------------------------------

    def submit(self, req, actor):
        """'created' | 'same' | 'changed'. Key and trace id are written here, before any create can be sent."""
        canon = canonical_json(req)
        op_id = req["operation_id"]
        with self.tx(self.intake(create=True)) as db:
            row = db.execute("SELECT request FROM submitted WHERE operation_id = ?", (op_id,)).fetchone()
            if row:
                return "same" if row["request"] == canon else "changed"
            now, t0 = now_ms(), invoked_ms()
            fp = fingerprint({"kind": req["kind"], "input": req["input"], "client_ref": op_id})
            db.execute("INSERT INTO submitted VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                       (op_id, canon, req["kind"], canonical_json(req["input"]), fp, secrets.token_hex(16),
                        "tr_" + secrets.token_hex(12), t0, t0 + req["create_deadline_ms"],
                        t0 + req["result_deadline_ms"], iso(now), actor))
            return "created"

    def cancel(self, op_id, intent):
        """'recorded' | 'unknown'. Only the first intent counts; a worker picks it up."""
        with self.tx(self.intake(create=True)) as db:
            if not db.execute("SELECT 1 FROM submitted WHERE operation_id = ?", (op_id,)).fetchone():
                return "unknown"
            db.execute("INSERT OR IGNORE INTO cancels VALUES (?, ?, ?)",
                       (op_id, canonical_json(intent), invoked_ms() + intent["cancel_deadline_ms"]))
            return "recorded"

    def show(self, op_id):
        row = self.get(op_id)
        intake = self.intake()
        sub = intake.execute("SELECT * FROM submitted WHERE operation_id = ?", (op_id,)).fetchone() if intake else None
        if not row and not sub:
            return None
        if not row:   # submitted, not yet picked up by a worker
            return {"operation_id": op_id, "state": "create_pending", "remote_job_id": None,
                    "idempotency_key": sub["idempotency_key"], "request_fingerprint": sub["request_fingerprint"],
                    "trace_id": sub["trace_id"], "result": None,
                    "history": [{"at": sub["at"], "actor": sub["actor"], "from": None, "to": "create_pending", "cause": "submit",
                                 "lease_token": None}]}
        hist = self.db.execute("SELECT * FROM history WHERE operation_id = ? ORDER BY seq", (op_id,)).fetchall()
        return {
            "operation_id": row["operation_id"], "state": row["state"], "remote_job_id": row["remote_job_id"],
            "idempotency_key": row["idempotency_key"], "request_fingerprint": row["request_fingerprint"],
            "trace_id": row["trace_id"], "result": json.loads(row["result"]) if row["result"] else None,
            "history": [{"at": h["at"], "actor": h["actor"], "from": h["from_state"], "to": h["to_state"],
                         "cause": h["cause"], "lease_token": h["lease_token"]} for h in hist],
            "conflicting_job_id": row["conflicting_job_id"], "reason": row["reason"],
            "cancel": json.loads(row["cancel"]) if row["cancel"] else None,
        }

    # ---- worker: pick up what the CLI recorded ----------------------------------------------------------------

    def import_intake(self, seen):
        """Copy new submissions (with their submit history entry) and cancel intents into client.db.
        `seen` is the caller's memo of what was already imported. Reads intake.db; writes client.db only."""
        intake = self.intake()
        if intake is None:
            return
        subs = [dict(r) for r in intake.execute("SELECT * FROM submitted").fetchall() if ("s", r["operation_id"]) not in seen]
        cans = [dict(r) for r in intake.execute("SELECT * FROM cancels").fetchall() if ("c", r["operation_id"]) not in seen]
        if not subs and not cans:
            return
        with self.tx() as db:
            for r in subs:
                cur = db.execute(
                    "INSERT OR IGNORE INTO ops (operation_id, kind, input, request_fingerprint, idempotency_key, trace_id,"
                    " submitted_at, create_deadline_at, result_deadline_at, state, next_due) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (r["operation_id"], r["kind"], r["input"], r["request_fingerprint"], r["idempotency_key"], r["trace_id"],
                     r["submitted_at"], r["create_deadline_at"], r["result_deadline_at"], "create_pending", 0))
                if cur.rowcount == 1:
                    at_ms = int(datetime_ms(r["at"]))
                    db.execute("INSERT INTO history VALUES (?,?,?,?,?,?,?,?,?)",
                               (r["operation_id"], 0, r["at"], at_ms, r["actor"], None, "create_pending", "submit", None))
            for c in cans:
                db.execute("UPDATE ops SET cancel = ?, cancel_deadline_at = ? WHERE operation_id = ? AND cancel IS NULL",
                           (c["intent"], c["deadline_at"], c["operation_id"]))
        seen.update(("s", r["operation_id"]) for r in subs)
        seen.update(("c", c["operation_id"]) for c in cans
                    if db.execute("SELECT 1 FROM ops WHERE operation_id = ?", (c["operation_id"],)).fetchone())

    # ---- worker side -----------------------------------------------------------------------------------------

    def get(self, op_id):
        if self.db is None:
            return None
        r = self.db.execute("SELECT * FROM ops WHERE operation_id = ?", (op_id,)).fetchone()
        return dict(r) if r else None

    def cancel_waiting(self, op_id):
        """A cancel intent recorded by the CLI that no worker has imported yet."""
        intake = self.intake()
        return bool(intake and intake.execute("SELECT 1 FROM cancels WHERE operation_id = ?", (op_id,)).fetchone())

    def working(self):
        q = "SELECT * FROM ops WHERE state IN (%s) ORDER BY submitted_at" % ",".join("?" * len(WORKING))
        return [dict(r) for r in self.db.execute(q, WORKING).fetchall()]

    def acquire(self, op_id, worker, lease_ms):
        """Take a free or expired lease by compare-and-set on the fencing token; the new token, or None."""
        with self.tx() as db:
            r = db.execute("SELECT state, lease_owner, lease_token, lease_expires FROM ops WHERE operation_id = ?",
                           (op_id,)).fetchone()
            now = now_ms()
            if not r or r["state"] in FINAL or (r["lease_owner"] is not None and r["lease_expires"] > now):
                return None
            token = r["lease_token"] + 1
            cur = db.execute("UPDATE ops SET lease_owner = ?, lease_token = ?, lease_expires = ?"
                             " WHERE operation_id = ? AND lease_token = ?",
                             (worker, token, now + lease_ms, op_id, r["lease_token"]))
            return token if cur.rowcount == 1 else None

    def renew(self, op_id, worker, token, lease_ms):
        """Extend a lease we still hold and that has not run out; False means it is lost for good."""
        now = now_ms()
        with self.tx() as db:
            cur = db.execute("UPDATE ops SET lease_expires = ? WHERE operation_id = ? AND lease_owner = ?"
                             " AND lease_token = ? AND lease_expires > ?",
                             (now + lease_ms, op_id, worker, token, now))
            return cur.rowcount == 1

    def release(self, op_id, worker, token):
        with self.tx() as db:
            db.execute("UPDATE ops SET lease_expires = 0 WHERE operation_id = ? AND lease_owner = ? AND lease_token = ?",
                       (op_id, worker, token))

    def commit(self, op_id, worker, token, moves=(), patch=None, require=None):
        """One state change: history entries for `moves` [(to, cause)], then `patch`, only while we hold the
        lease. Returns True, "lease" when the lease was taken over, or "require" when the extra SQL condition
        `require` no longer holds (e.g. a cancel was recorded meanwhile)."""
        patch = dict(patch or {})
        bad = set(patch) - PATCHABLE
        if bad:
            raise ValueError("not patchable: %s" % bad)
        with self.tx() as db:
            r = db.execute("SELECT state FROM ops WHERE operation_id = ? AND lease_owner = ? AND lease_token = ?",
                           (op_id, worker, token)).fetchone()
            if not r or r["state"] in FINAL:
                return "lease"
            if require and not db.execute("SELECT 1 FROM ops WHERE operation_id = ? AND (%s)" % require, (op_id,)).fetchone():
                return "require"
            state, now = r["state"], now_ms()
            for to, cause in moves:
                if not (to in ALLOWED[state]):
                    raise RuntimeError("transition %s -> %s is not in the protocol" % (state, to))
                self._history(db, op_id, state, to, worker, cause, now, token)
                state = to
            patch["state"] = state
            if state in FINAL:
                patch["lease_expires"] = 0
            cols = ", ".join("%s = ?" % k for k in patch)
            db.execute("UPDATE ops SET %s WHERE operation_id = ?" % cols, (*patch.values(), op_id))
            return True

    def _history(self, db, op_id, frm, to, actor, cause, now, token):
        last = db.execute("SELECT seq, at_ms FROM history WHERE operation_id = ? ORDER BY seq DESC LIMIT 1",
                          (op_id,)).fetchone()
        seq, at = (last["seq"] + 1, max(now, last["at_ms"])) if last else (0, now)
        db.execute("INSERT INTO history VALUES (?,?,?,?,?,?,?,?,?)", (op_id, seq, iso(at), at, actor, frm, to, cause, token))

    # ---- webhooks --------------------------------------------------------------------------------------------

    def first_delivery(self, event_id):
        with self.tx() as db:
            return db.execute("INSERT OR IGNORE INTO webhook_seen VALUES (?, ?)", (event_id, now_ms())).rowcount == 1

    def poke(self, job_id):
        """A webhook only makes the next status read of its job immediate; it never moves a state."""
        with self.tx() as db:
            db.execute("UPDATE ops SET next_due = ? WHERE remote_job_id = ? AND state IN"
                       " ('accepted', 'observing', 'cancelling')", (now_ms(), job_id))
