"""Talking to the provider: one HTTP call with a hard timeout, result verification, and the webhook listener."""
import base64
import email.utils
import hashlib
import hmac
import http.client
import http.server
import json
import sys
import threading
import time
import urllib.parse


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body
        try:
            self.json = json.loads(body.decode("utf-8")) if body else None
        except ValueError:
            self.json = None

    @property
    def code(self):
        return self.json.get("code") if isinstance(self.json, dict) else None

    def retry_after_ms(self):
        v = (self.headers.get("retry-after") or "").strip()
        if v.isdigit():
            return int(v) * 1000
        try:
            return max(0, int((email.utils.parsedate_to_datetime(v).timestamp() - time.time()) * 1000))
        except (TypeError, ValueError):
            return None

    def describe(self):
        return "%d%s" % (self.status, " " + self.code if self.code else "")


class NoAnswer:
    """Connection refused/reset or timed out: whether the request ran is unknown."""
    status = None
    json = None
    code = None

    def __init__(self, reason):
        self.reason = reason

    def retry_after_ms(self):
        return None

    def describe(self):
        return "no answer (%s)" % self.reason


def ambiguous(o):
    return isinstance(o, NoAnswer) or o.status >= 500 or o.status == 408


def binding_wait(o):
    """A Retry-After the client must honour (409/429/503): milliseconds, or None."""
    if isinstance(o, Answer) and o.status in (409, 429, 503):
        return o.retry_after_ms()
    return None


class Http:
    def __init__(self, base_url, token, worker_id, timeout_s):
        u = urllib.parse.urlsplit(base_url)
        self.host, self.port, self.token, self.worker, self.timeout = u.hostname, u.port or 80, token, worker_id, timeout_s

    def call(self, method, path, trace_id, body=None, key=None, lease_token=None):
        headers = {"Authorization": "Bearer " + self.token, "X-Trace-ID": trace_id, "X-Worker-ID": self.worker,
                   "Accept": "application/json"}
        if lease_token is not None:   # the fencing token of the lease this request is sent under (client-protocol.md)
            headers["X-Lease-Token"] = str(lease_token)
        data = None
        if body is not None:
            data = body.encode("utf-8") if isinstance(body, str) else body
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["Idempotency-Key"] = key
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            payload = resp.read()
            return Answer(resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload)
        except (OSError, http.client.HTTPException) as e:
            return NoAnswer(type(e).__name__)
        finally:
            conn.close()


def job_of(value):
    return value if isinstance(value, dict) and isinstance(value.get("job_id"), str) and isinstance(value.get("state"), str) else None


def _valid_item(v):
    if not isinstance(v, dict) or not isinstance(v.get("item_id"), str):
        return None
    if v.get("status") == "succeeded" and set(v) == {"item_id", "status", "output"} and isinstance(v["output"], dict):
        return "succeeded"
    e = v.get("error")
    if (v.get("status") == "failed" and set(v) == {"item_id", "status", "error"} and isinstance(e, dict)
            and isinstance(e.get("code"), str) and isinstance(e.get("message"), str)):
        return "failed"
    return None


def verify_results(answer, expected):
    """(result, None) when Content-Digest, the job's result.sha256, every line and the counts agree, else (None, why)."""
    body = answer.body
    digest = None
    for member in (answer.headers.get("content-digest") or "").split(","):
        name, _, value = member.strip().partition("=")
        if name.strip().lower() == "sha-256" and value.strip().startswith(":") and value.strip().endswith(":"):
            digest = value.strip()[1:-1]
    if digest is None:
        return None, "missing or unreadable Content-Digest sha-256"
    if digest != base64.b64encode(hashlib.sha256(body).digest()).decode():
        return None, "body does not match Content-Digest"
    hexd = hashlib.sha256(body).hexdigest()
    if hexd != expected.get("sha256"):
        return None, "body does not match the job's result.sha256"
    try:
        lines = body.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None, "body is not UTF-8"
    if lines and lines[-1] == "":
        lines.pop()
    failed = 0
    for i, line in enumerate(lines, 1):
        try:
            status = _valid_item(json.loads(line))
        except ValueError:
            status = None
        if status is None:
            return None, "line %d is not a valid result item" % i
        failed += status == "failed"
    if len(lines) != expected.get("items_total") or failed != expected.get("items_failed"):
        return None, "%d items (%d failed), the job announced %s (%s failed)" % (
            len(lines), failed, expected.get("items_total"), expected.get("items_failed"))
    for h, n in (("x-items-total", len(lines)), ("x-items-failed", failed)):
        v = answer.headers.get(h)
        if v is not None and v.strip().isdigit() and int(v) != n:
            return None, "%s disagrees with the body" % h
    return {"sha256": hexd, "items_total": len(lines), "items_failed": failed}, None


# ---- webhooks (Standard Webhooks, verified by hand) --------------------------------------------------------------

def verify_webhook(secret, headers, body, tolerance_s=300):
    """The parsed event when the signature is valid and fresh, else None."""
    msg_id, ts, sigs = headers.get("webhook-id"), headers.get("webhook-timestamp"), headers.get("webhook-signature")
    if not (msg_id and ts and sigs and ts.strip().isdigit()):
        return None
    if abs(time.time() - int(ts)) > tolerance_s:
        return None
    try:
        key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    except ValueError:
        return None
    signed = b"%s.%s.%s" % (msg_id.encode(), ts.strip().encode(), body)
    want = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for part in sigs.split():
        version, _, sig = part.partition(",")
        if version == "v1" and hmac.compare_digest(sig, want):
            try:
                return json.loads(body.decode("utf-8"))
            except ValueError:
                return None
    return None


def start_webhook_listener(port, secret, make_store):
    """A threaded listener on 127.0.0.1:port. A verified, first-seen event for a job only pulls its next status
    read forward; duplicates (by webhook-id) are acknowledged and ignored."""
    local = threading.local()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            event = verify_webhook(secret, {k.lower(): v for k, v in self.headers.items()}, body)
            if event is None:
                self.send_response(401)
                self.end_headers()
                return
            try:
                if not hasattr(local, "store"):
                    local.store = make_store()
                job = (event.get("data") or {}).get("job_id") if isinstance(event, dict) else None
                if local.store.first_delivery(self.headers["webhook-id"]) and isinstance(job, str) \
                        and event.get("type") != "job.progress":
                    local.store.poke(job)
            except Exception as e:  # a hint that could not be stored is simply lost: polling still finds the end
                print("webhook: %s" % e, file=sys.stderr)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
