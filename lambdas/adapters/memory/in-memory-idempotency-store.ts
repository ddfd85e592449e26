import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyStore,
} from '../../kernel/idempotency/idempotency-store.port.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { Clock } from '../../kernel/time/clock.ts';

/** Test double of the idempotency store; a claim past its expiry is forgotten, as DynamoDB's TTL would. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  readonly #clock: Clock;
  readonly #claims = new Map<string, IdempotencyClaim>();

  constructor(options: { clock: Clock }) {
    this.#clock = options.clock;
  }

  async claim(namespace: Namespace, key: string, claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const storageKey = `${namespace.key}\u0000${key}`;
    const existing = this.#claims.get(storageKey);
    if (existing && Date.parse(existing.expiresAt) > this.#clock.now().getTime()) {
      return { outcome: 'existing', ...existing };
    }
    this.#claims.set(storageKey, { ...claim });
    return { outcome: 'claimed' };
  }
}
