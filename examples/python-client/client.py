#!/usr/bin/env python3
"""jobproof example client in Python (standard library only).

    client.py submit            < {"operation_id", "kind", "input", "create_deadline_ms", "result_deadline_ms"}
    client.py cancel OPID       < {"actor", "reason", "cancel_deadline_ms"}
    client.py work
    client.py show OPID
    client.py task submit       < {"task_op_id", "object_ref", "object_version", "input", "deadline_ms"}
    client.py task work
    client.py task show TASK_OP_ID

Environment and exit codes: /work/shared/spec/client-protocol.md (0 ok, 2 refused, 3 changed request).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from store import Store  # noqa: E402


def refuse(code, msg):
    print("client: " + msg, file=sys.stderr)
    return code


def read_stdin(fields):
    """The stdin JSON object when it has exactly `fields` with the right types, else None."""
    try:
        v = json.loads(sys.stdin.read())
    except ValueError:
        return None
    if not isinstance(v, dict) or set(v) != set(fields):
        return None
    for k, check in fields.items():
        if not check(v[k]):
            return None
    return v


def text(lo, hi):
    return lambda x: isinstance(x, str) and lo <= len(x) <= hi


def positive_int(x):
    return isinstance(x, int) and not isinstance(x, bool) and x > 0


SUBMIT = {"operation_id": text(1, 200), "kind": text(1, 64), "input": lambda x: isinstance(x, dict),
          "create_deadline_ms": positive_int, "result_deadline_ms": positive_int}
CANCEL = {"actor": text(1, 200), "reason": text(0, 1000), "cancel_deadline_ms": positive_int}


def main(argv):
    env = os.environ
    if not env.get("JOBPROOF_STATE"):
        return refuse(2, "JOBPROOF_STATE is not set")
    verb, args = (argv[0] if argv else ""), argv[1:]
    actor = env.get("JOBPROOF_WORKER_ID") or "cli"
    if verb == "submit" and not args:
        req = read_stdin(SUBMIT)
        if req is None:
            return refuse(2, "submit needs a JSON object with exactly %s" % ", ".join(SUBMIT))
        outcome = Store(env["JOBPROOF_STATE"]).submit(req, actor)
        if outcome == "changed":
            return refuse(3, "operation %s exists with a different request; a changed request is a new operation "
                             "(new id, new key)" % req["operation_id"])
        return 0
    if verb == "cancel" and len(args) == 1:
        intent = read_stdin(CANCEL)
        if intent is None:
            return refuse(2, "cancel needs a JSON object with exactly %s" % ", ".join(CANCEL))
        if Store(env["JOBPROOF_STATE"]).cancel(args[0], intent) == "unknown":
            return refuse(2, "unknown operation %s" % args[0])
        return 0
    if verb == "show" and len(args) == 1:
        rec = Store(env["JOBPROOF_STATE"]).show(args[0])
        if rec is None:
            return refuse(2, "unknown operation %s" % args[0])
        print(json.dumps(rec, indent=2))
        return 0
    if verb == "task":
        import tasks
        return tasks.main(args, env, refuse)
    if verb == "work" and not args:
        for k in ("JOBPROOF_PROVIDER_URL", "JOBPROOF_TOKEN"):
            if not env.get(k):
                return refuse(2, "%s is not set" % k)
        from worker import Worker
        return Worker(env).run()
    return refuse(2, "usage: client.py submit | cancel OPERATION_ID | work | show OPERATION_ID | task submit|work|show")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
