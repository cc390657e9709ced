"""The client protocol as data: operation states and the transitions the judge allows.

Mirrors ALLOWED_TRANSITIONS in src/lib/client-protocol.ts. Every state change this client makes is checked
against this table before it is written, so a bug shows up as an exception, never as a bad history.
"""
import datetime
import hashlib
import json

WORKING = (
    "create_pending", "create_unknown", "reconciliation", "accepted",
    "observing", "cancel_requested", "cancelling", "result_collecting",
)
FINAL = (
    "succeeded", "failed", "cancelled", "cancellation_unconfirmed",
    "result_timed_out", "result_unavailable", "result_validation_failed", "needs_attention",
)

ALLOWED = {
    None: ("create_pending",),
    "create_pending": ("accepted", "result_collecting", "create_unknown", "failed", "cancelled", "needs_attention", "observing"),
    "create_unknown": ("reconciliation", "create_pending", "accepted", "observing", "result_collecting", "failed", "cancel_requested", "needs_attention"),
    "reconciliation": ("accepted", "observing", "result_collecting", "create_pending", "create_unknown", "cancel_requested", "failed", "cancelled", "needs_attention"),
    "accepted": ("observing", "cancel_requested", "result_collecting", "failed", "cancelled", "result_timed_out", "needs_attention"),
    "observing": ("cancel_requested", "result_collecting", "failed", "cancelled", "result_timed_out", "needs_attention"),
    "cancel_requested": ("cancelling", "result_collecting", "failed", "cancelled", "cancellation_unconfirmed", "needs_attention"),
    "cancelling": ("result_collecting", "failed", "cancelled", "cancellation_unconfirmed", "needs_attention"),
    "result_collecting": ("succeeded", "result_unavailable", "result_validation_failed", "result_timed_out", "needs_attention"),
}
for _s in FINAL:
    ALLOWED[_s] = ()

TERMINAL_JOB_STATES = ("succeeded", "failed", "cancelled", "expired")


def allowed(frm, to):
    return to in ALLOWED[frm]


def canonical_json(value):
    """Object keys sorted, no insignificant whitespace (the provider's fingerprint form)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(value):
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def iso(ms):
    """RFC 3339 UTC with milliseconds, from epoch milliseconds."""
    ms = int(ms)
    t = datetime.datetime.fromtimestamp(ms // 1000, tz=datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)
