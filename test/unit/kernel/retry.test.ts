import { describe, expect, it } from 'vitest';
import { again, done, fullJitter, retrying } from '../../../lambdas/kernel/retry/retry.ts';

describe('Function: retrying', () => {
  it('stops at the first attempt that is done, backing off only where an attempt asked to', async () => {
    const waits: number[] = [];
    const outcomes = [again(), again('at-once'), again(), done('ok')];

    const result = await retrying(async (index) => outcomes[index] ?? done('late'), {
      attempts: 10,
      backoff: async (failed) => {
        waits.push(failed);
      },
      exhausted: () => new Error('exhausted'),
    });

    expect(result).toBe('ok');
    expect(waits).toEqual([0, 2]);
  });

  it('throws what `exhausted` makes after the last attempt, and an attempt error at once', async () => {
    let calls = 0;
    const options = { attempts: 3, backoff: async () => undefined, exhausted: () => new Error('gave up') };

    const losing = async () => {
      calls += 1;
      return again();
    };

    await expect(retrying(losing, options)).rejects.toThrow('gave up');
    expect(calls).toBe(3);
    await expect(
      retrying(async () => {
        throw new Error('not a lost race');
      }, options),
    ).rejects.toThrow('not a lost race');
  });
});

describe('Function: fullJitter', () => {
  it('waits a uniform time up to an exponentially growing cap', async () => {
    const backoff = fullJitter({ baseMs: 1, capMs: 4 });
    const started = performance.now();

    for (let failed = 0; failed < 6; failed++) await backoff(failed);

    // At most 1 + 2 + 4 + 4 + 4 + 4 ms of waiting (and timer slack), never unbounded.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
