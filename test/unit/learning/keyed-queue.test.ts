import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../../lambdas/capabilities/learning/keyed-queue.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Class: KeyedQueue', () => {
  it('runs tasks of one key one at a time in arrival order, and other keys side by side', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const task = (name: string) => async () => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running -= 1;
      return name;
    };

    const results = await Promise.all([
      queue.run('a', task('a1')),
      queue.run('a', task('a2')),
      queue.run('b', task('b1')),
      queue.run('a', task('a3')),
    ]);

    expect(results).toEqual(['a1', 'a2', 'b1', 'a3']);
    const ofA = log.filter((line) => line.endsWith('a1') || line.endsWith('a2') || line.endsWith('a3'));
    expect(ofA).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    expect(mostAtOnce).toBe(2);
    await tick();
    expect(queue.size).toBe(0);
  });

  it('goes on with the next task after one fails, and hands the failure to its own caller only', async () => {
    const queue = new KeyedQueue();

    const failed = queue.run('a', async () => {
      throw new Error('first failed');
    });
    const next = queue.run('a', async () => 'second ran');

    await expect(failed).rejects.toThrow('first failed');
    await expect(next).resolves.toBe('second ran');
  });
});
