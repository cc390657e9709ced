import { describe, expect, it } from 'vitest';
import { eitherSignal } from '../../../../src/conformance/runner/in-process/either-signal.js';

describe('eitherSignal', () => {
  it('aborts with the reason of whichever source aborts first', () => {
    for (const first of [0, 1]) {
      const sources = [new AbortController(), new AbortController()];
      const { signal } = eitherSignal(sources[0]!.signal, sources[1]!.signal);
      const reason = new Error(`source ${first}`);
      sources[first]!.abort(reason);
      sources[1 - first]!.abort(new Error('later'));
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBe(reason);
    }
  });

  it('is aborted from the start when a source already is', () => {
    const a = new AbortController();
    const reason = new Error('gone');
    a.abort(reason);
    const { signal } = eitherSignal(new AbortController().signal, a.signal);
    expect(signal.reason).toBe(reason);
  });

  it('once released, follows neither source and leaves no listener on them', () => {
    const a = new AbortController();
    const b = new AbortController();
    let heard = 0;
    const { signal, release } = eitherSignal(a.signal, b.signal);
    signal.addEventListener('abort', () => heard++);
    release();
    b.abort();
    a.abort();
    expect(signal.aborted).toBe(false);
    expect(heard).toBe(0);
  });

  it('fires its abort listeners synchronously within the source abort, as AbortSignal.any does', () => {
    const a = new AbortController();
    const seen: string[] = [];
    a.signal.addEventListener('abort', () => seen.push('source listener'));
    const { signal } = eitherSignal(a.signal, new AbortController().signal);
    signal.addEventListener('abort', () => seen.push('combined'));
    a.abort();
    seen.push('after abort()');
    expect(seen).toEqual(['source listener', 'combined', 'after abort()']);
  });
});
