import { describe, expect, it } from 'vitest';
import { within } from '../../src/lib/within.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('within', () => {
  it('gives the promise when it settles first, and leaves no timer armed', async () => {
    const before = timers();
    await expect(within(Promise.resolve('done'), 120_000, null)).resolves.toBe('done');
    expect(timers()).toBe(before);
  });

  it('gives the promise rejection when it rejects first, and leaves no timer armed', async () => {
    const before = timers();
    await expect(within(Promise.reject(new Error('exited badly')), 120_000, null)).rejects.toThrow('exited badly');
    expect(timers()).toBe(before);
  });

  it('gives the fallback when the time runs out first', async () => {
    await expect(within(new Promise<never>(() => {}), 5, 'late')).resolves.toBe('late');
  });
});
