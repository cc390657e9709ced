/**
 * A signal aborted when either of two is, with the first one's reason, for as long as one request lasts.
 *
 * `AbortSignal.any` does the same but keeps its result alive for as long as a source might abort, through weak
 * references and a finalizer per call: on a worker's long-lived hang-up signal, one per request was a tenth of an
 * in-process exchange. A request's combination is needed only until its answer is in, so it is undone then
 * (`release`), and nothing of it outlives the request.
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release: () => void } {
  const ctl = new AbortController();
  if (a.aborted || b.aborted) {
    ctl.abort(a.aborted ? a.reason : b.reason);
    return { signal: ctl.signal, release: () => undefined };
  }
  const onA = () => ctl.abort(a.reason);
  const onB = () => ctl.abort(b.reason);
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  const release = () => {
    a.removeEventListener('abort', onA);
    b.removeEventListener('abort', onB);
  };
  // Once aborted, the other source has nothing left to say.
  ctl.signal.addEventListener('abort', release, { once: true });
  return { signal: ctl.signal, release };
}
