import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY,
  type IdempotencyClaim,
  type IdempotencyStore,
} from '../../lambdas/kernel/idempotency/idempotency-store.port.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { newRecordId } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

export interface IdempotencyStoreFixture {
  readonly store: IdempotencyStore;
  close(): Promise<void>;
}

/** Builds a fresh, empty store whose notion of "now" is `clock`, which the suite moves to let claims expire. */
export type CreateIdempotencyStore = (clock: ManualClock) => Promise<IdempotencyStoreFixture>;

const HOUR = 3_600_000;

/**
 * What every IdempotencyStore must do: the first claim of a key in a namespace wins and is answered to every
 * later claim (until it expires, by the store's clock), namespaces never share keys, and concurrent first
 * claims elect exactly one winner. Runs against the in-memory fake and the DynamoDB adapter.
 */
export const describeIdempotencyStoreContract = (name: string, create: CreateIdempotencyStore) => {
  describe(`Contract: IdempotencyStore (${name})`, () => {
    let fixture: IdempotencyStoreFixture;
    let clock: ManualClock;
    const alice = scopeOf({ sub: 'alice' }).namespace(IDEMPOTENCY);
    const bob = scopeOf({ sub: 'bob' }).namespace(IDEMPOTENCY);

    /** A claim as the record service makes it, expiring `ttlMs` after the clock's now. */
    const claimOf = (fingerprint: string, ttlMs = HOUR): IdempotencyClaim => ({
      fingerprint,
      recordId: newRecordId(),
      expiresAt: new Date(clock.now().getTime() + ttlMs).toISOString(),
    });

    beforeEach(async () => {
      clock = new ManualClock('2026-06-01T00:00:00.000Z');
      fixture = await create(clock);
    });

    afterEach(async () => {
      await fixture.close();
    });

    describe('Method: claim', () => {
      it('claims a key the namespace has not seen', async () => {
        // Act
        const outcome = await fixture.store.claim(alice, 'key-1', claimOf('create-note:a'));

        // Assess
        expect(outcome).toEqual({ outcome: 'claimed' });
      });

      it('answers a repeated key with the first claim, whatever the repeat said', async () => {
        // Prepare
        const first = claimOf('create-note:a');
        await fixture.store.claim(alice, 'key-1', first);

        // Act: a different body, target and expiry under the same key
        const repeat = await fixture.store.claim(alice, 'key-1', claimOf('create-note:b', 5 * HOUR));
        const again = await fixture.store.claim(alice, 'key-1', claimOf('create-note:c', 9 * HOUR));

        // Assess: the repeats neither replaced the first claim nor extended it
        expect(repeat).toEqual({ outcome: 'existing', ...first });
        expect(again).toEqual({ outcome: 'existing', ...first });
      });

      it('keeps different keys of one namespace apart', async () => {
        // Prepare
        const [one, two] = [claimOf('create-note:a'), claimOf('create-note:b')];

        // Act
        const outcomes = [
          await fixture.store.claim(alice, 'key-1', one),
          await fixture.store.claim(alice, 'key-2', two),
        ];

        // Assess
        expect(outcomes).toEqual([{ outcome: 'claimed' }, { outcome: 'claimed' }]);
        expect(await fixture.store.claim(alice, 'key-2', claimOf('other'))).toEqual({ outcome: 'existing', ...two });
      });

      it('keeps keys apart per namespace: the key another caller used is new to this one', async () => {
        // Prepare
        const [alices, bobs] = [claimOf('create-note:a'), claimOf('create-note:b')];
        await fixture.store.claim(alice, 'shared-key', alices);

        // Act
        const bobsOutcome = await fixture.store.claim(bob, 'shared-key', bobs);

        // Assess: each caller replays only its own claim
        expect(bobsOutcome).toEqual({ outcome: 'claimed' });
        expect(await fixture.store.claim(alice, 'shared-key', claimOf('x'))).toEqual({
          outcome: 'existing',
          ...alices,
        });
        expect(await fixture.store.claim(bob, 'shared-key', claimOf('y'))).toEqual({ outcome: 'existing', ...bobs });
      });

      it('keeps a claim in force until the very instant it expires', async () => {
        // Prepare
        const first = claimOf('create-note:a', HOUR);
        await fixture.store.claim(alice, 'key-1', first);

        // Act
        clock.advance(HOUR - 1);
        const outcome = await fixture.store.claim(alice, 'key-1', claimOf('create-note:b'));

        // Assess
        expect(outcome).toEqual({ outcome: 'existing', ...first });
      });

      it('lets a new claim take over a key whose claim has expired, and answers the new claim afterwards', async () => {
        // Prepare
        await fixture.store.claim(alice, 'key-1', claimOf('create-note:a', HOUR));
        clock.advance(HOUR);

        // Act
        const takeover = claimOf('create-note:b', HOUR);
        const outcome = await fixture.store.claim(alice, 'key-1', takeover);

        // Assess: the expired claim is gone; the new one is what a repeat now meets
        expect(outcome).toEqual({ outcome: 'claimed' });
        expect(await fixture.store.claim(alice, 'key-1', claimOf('create-note:c'))).toEqual({
          outcome: 'existing',
          ...takeover,
        });
      });

      it('lets exactly one of many concurrent first claims win, and answers the winner to the rest', async () => {
        // Prepare
        const claims = Array.from({ length: 8 }, (_, caller) => claimOf(`create-note:${caller}`));

        // Act
        const outcomes = await Promise.all(claims.map((claim) => fixture.store.claim(alice, 'key-1', claim)));

        // Assess
        const winners = claims.filter((_, index) => outcomes[index]?.outcome === 'claimed');
        expect(winners).toHaveLength(1);
        const losers = outcomes.filter((outcome) => outcome.outcome === 'existing');
        expect(losers).toHaveLength(7);
        for (const loser of losers) expect(loser).toEqual({ outcome: 'existing', ...winners[0] });
      });

      it('lets exactly one of many concurrent claims take over an expired key', async () => {
        // Prepare
        await fixture.store.claim(alice, 'key-1', claimOf('create-note:old', HOUR));
        clock.advance(2 * HOUR);
        const claims = Array.from({ length: 8 }, (_, caller) => claimOf(`create-note:${caller}`));

        // Act
        const outcomes = await Promise.all(claims.map((claim) => fixture.store.claim(alice, 'key-1', claim)));

        // Assess: the old claim is answered to nobody; one new claim is answered to all the others
        const winners = claims.filter((_, index) => outcomes[index]?.outcome === 'claimed');
        expect(winners).toHaveLength(1);
        for (const outcome of outcomes.filter((value) => value.outcome === 'existing')) {
          expect(outcome).toEqual({ outcome: 'existing', ...winners[0] });
        }
      });
    });
  });
};
