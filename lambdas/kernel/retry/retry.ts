import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The one retry loop of the service's own writes. In-house rather than a library: exponential-backoff (full
 * jitter, no dependencies) and p-retry (a 1-2x jitter multiplier) cannot retry an attempt at once when it
 * failed on a guess rather than on contention, nor take an injected wait so tests do not sleep; cockatiel's
 * policies are far more than this needs.
 */

/** Waits before attempt `failed + 1`, given the 0-based index of the attempt that just failed. */
export type Backoff = (failed: number) => Promise<void>;

/**
 * Full jitter (a uniform wait up to an exponentially growing cap): writers that lost the same race spread out
 * instead of colliding again in step.
 */
export const fullJitter =
  (options: { readonly baseMs: number; readonly capMs: number }): Backoff =>
  (failed) =>
    sleep(Math.random() * Math.min(options.capMs, options.baseMs * 2 ** failed));

/** What one attempt came to: a result, or another attempt — after backing off, or at once. */
export type Attempt<T> = { readonly done: T } | { readonly again: 'after-backoff' | 'at-once' };

export const done = <T>(value: T): Attempt<T> => ({ done: value });
export const again = (when: 'after-backoff' | 'at-once' = 'after-backoff'): Attempt<never> => ({ again: when });

/** Runs `attempt` until it is done, at most `attempts` times; then throws what `exhausted` makes. */
export const retrying = async <T>(
  attempt: (index: number) => Promise<Attempt<T>>,
  options: { readonly attempts: number; readonly backoff: Backoff; readonly exhausted: () => Error },
): Promise<T> => {
  for (let index = 0; index < options.attempts; index++) {
    const outcome = await attempt(index);
    if ('done' in outcome) return outcome.done;
    if (outcome.again === 'after-backoff') await options.backoff(index);
  }
  throw options.exhausted();
};
