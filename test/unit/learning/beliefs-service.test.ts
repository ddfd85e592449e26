import { beforeEach, describe, expect, it } from 'vitest';
import type { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { DEFAULT_CONFIG } from '../../../lambdas/app/service-tables.ts';
import type { CandidateRule } from '../../../lambdas/capabilities/learning/belief.schema.ts';
import { beliefIdOf, parseBeliefId } from '../../../lambdas/capabilities/learning/belief-record.ts';
import { BeliefsService } from '../../../lambdas/capabilities/learning/beliefs-service.ts';
import { NotFoundError, ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { SensitiveContentRefusedError } from '../../../lambdas/kernel/protection/protection.errors.ts';
import { RevisionConflictError, RevisionMismatchError } from '../../../lambdas/kernel/records/record.errors.ts';
import { RevisionWriter } from '../../../lambdas/kernel/records/revision-writer.ts';
import type { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { createUlidGenerator } from '../../../lambdas/kernel/time/ids.ts';
import type { Backend } from '../../support/in-memory-backend.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';
import { scopeOf } from '../../support/scopes.ts';

const rule = (overrides: Partial<CandidateRule> = {}): CandidateRule => ({
  key: 'response.length',
  value: 'short',
  kind: 'preference',
  basis: 'behavioral',
  cardinality: 'single',
  polarity: 'confirm',
  agent: 'coder',
  ...overrides,
});

describe('Class: BeliefsService', () => {
  let backend: Backend;
  let clock: ManualClock;
  let records: InMemoryRecordStore;
  const ids = createUlidGenerator();
  const alice = scopeOf({ sub: 'alice' });
  const bob = scopeOf({ sub: 'bob' });

  beforeEach(() => {
    ({ backend, clock, records } = inMemoryBackend());
  });

  const observe = (session: string) => ({ eventId: ids.next(), session, at: clock.now().toISOString() });

  describe('Method: learn', () => {
    it('counts every one of 50 concurrent observations of one rule: no increment is lost', async () => {
      const observations = Array.from({ length: 50 }, (_, index) => observe(`s${index % 5}`));

      const results = await Promise.all(
        observations.map((observation) => backend.beliefs.learn(alice, [rule()], observation)),
      );

      expect(results.every(({ touched }) => touched.length === 1)).toBe(true);
      const [belief] = (await backend.beliefs.list(alice, { kind: 'preference', agent: 'coder' }, { limit: 10 })).items;
      expect(belief?.belief.values[0]?.support).toBe(50);
      expect(belief?.revision).toBe(50);
      expect(belief?.belief.status).toBe('mature');
    });

    it('gives up after a bounded number of lost races with a retryable 503, having written nothing', async () => {
      const crowded = {
        ...records,
        getHead: records.getHead.bind(records),
        append: async () => {
          throw new RevisionConflictError();
        },
      } as unknown as InMemoryRecordStore;
      let attempts = 0;
      const beliefs = new BeliefsService({
        revisions: crowded,
        heads: crowded,
        writer: new RevisionWriter({
          revisions: crowded,
          ids,
          clock,
          backoff: async () => {
            attempts += 1;
          },
        }),
        clock,
        ids,
        learning: () => DEFAULT_CONFIG.learning,
      });

      await expect(beliefs.learn(alice, [rule()], observe('s1'))).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(attempts).toBe(25);
    });

    it('folds a retried event once: the same event id twice leaves support at one and writes one revision', async () => {
      const observation = observe('s1');

      await backend.beliefs.learn(alice, [rule()], observation);
      const again = await backend.beliefs.learn(alice, [rule()], observation);

      expect(again.touched[0]?.revision).toBe(1);
      expect(again.touched[0]?.belief.values[0]?.support).toBe(1);
    });

    it('withholds a candidate holding a personal identifier or secret and touches nothing for it', async () => {
      const learned = await backend.beliefs.learn(
        alice,
        [rule({ key: 'contact', value: 'reach me at jane.doe@example.com' }), rule({ key: 'tone', value: 'casual' })],
        observe('s1'),
      );

      expect(learned.withheld).toEqual([{ key: 'contact', kind: 'preference', reasons: ['pii.email'] }]);
      expect(learned.touched.map(({ belief }) => belief.key)).toEqual(['tone']);
      const stored = JSON.stringify((await backend.beliefs.list(alice, {}, { limit: 50 })).items);
      expect(stored).not.toContain('jane.doe');
    });

    it("keeps an agent's preference in that agent's namespace, out of reach of another agent's listing", async () => {
      await backend.beliefs.learn(alice, [rule({ agent: 'coder' })], observe('s1'));

      const writer = await backend.beliefs.list(alice, { kind: 'preference', agent: 'writer' }, { limit: 10 });
      const principalWide = await backend.beliefs.list(alice, { kind: 'preference' }, { limit: 10 });
      const coder = await backend.beliefs.list(alice, { kind: 'preference', agent: 'coder' }, { limit: 10 });

      expect(writer.items).toEqual([]);
      expect(principalWide.items).toEqual([]);
      expect(coder.items).toHaveLength(1);
    });
  });

  describe('Method: list', () => {
    it('pages across kinds with one opaque cursor and filters by status', async () => {
      const kinds = ['profile', 'preference', 'pattern'] as const;
      for (const [index, kind] of kinds.entries())
        for (const key of ['a', 'b'])
          await backend.beliefs.learn(
            alice,
            [
              rule({
                kind,
                key: `${key}${index}`,
                agent: undefined,
                basis: key === 'a' ? 'declarative' : 'behavioral',
              }),
            ],
            observe('s1'),
          );

      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await backend.beliefs.list(alice, {}, { limit: 4, cursor });
        seen.push(...page.items.map(({ belief }) => `${belief.kind}:${belief.key}`));
        cursor = page.nextCursor;
      } while (cursor);
      const mature = await backend.beliefs.list(alice, { status: 'mature' }, { limit: 50 });

      expect(seen.sort()).toEqual([
        'pattern:a2',
        'pattern:b2',
        'preference:a1',
        'preference:b1',
        'profile:a0',
        'profile:b0',
      ]);
      expect(mature.items.map(({ belief }) => belief.key).sort()).toEqual(['a0', 'a1', 'a2']);
    });
  });

  describe('Method: correct', () => {
    it("applies the principal's stated value at once, from the revision read only", async () => {
      const { touched } = await backend.beliefs.learn(alice, [rule()], observe('s1'));
      const [learned] = touched;
      if (!learned) throw new Error('nothing learned');

      await expect(backend.beliefs.correct(alice, learned.id, [], { value: 'long' })).rejects.toBeInstanceOf(
        RevisionMismatchError,
      );
      await expect(backend.beliefs.correct(alice, learned.id, [9], { value: 'long' })).rejects.toBeInstanceOf(
        RevisionMismatchError,
      );
      const corrected = await backend.beliefs.correct(alice, learned.id, [learned.revision], { value: 'long' });

      expect(corrected.belief).toMatchObject({ status: 'mature', appliedValue: 'long', basis: 'declarative' });
      expect(corrected.revision).toBe(2);
    });

    it('retracting the applied value of a multi-valued key stops applying it and keeps the others', async () => {
      const multi = (value: string) => rule({ key: 'languages', value, cardinality: 'multi', basis: 'declarative' });
      await backend.beliefs.learn(alice, [multi('en')], observe('s1'));
      const { touched } = await backend.beliefs.learn(alice, [multi('fr')], observe('s1'));
      const [belief] = touched;
      if (!belief) throw new Error('nothing learned');
      expect(belief.belief.appliedValue).toEqual(['en', 'fr']);

      clock.advance(1000);
      const corrected = await backend.beliefs.correct(alice, belief.id, [belief.revision], { retract: 'fr' });

      expect(corrected.belief.appliedValue).toEqual(['en']);
    });

    it('refuses a stated value holding a secret, naming the reason and not the value', async () => {
      const [learned] = (await backend.beliefs.learn(alice, [rule()], observe('s1'))).touched;
      if (!learned) throw new Error('nothing learned');

      const refusal = backend.beliefs.correct(alice, learned.id, [learned.revision], { value: 'AKIAIOSFODNN7EXAMPLE' });

      await expect(refusal).rejects.toBeInstanceOf(SensitiveContentRefusedError);
      expect((await backend.beliefs.inspect(alice, learned.id)).revision).toBe(1);
    });
  });

  describe('Methods: forget and reset', () => {
    it('forgets a belief for good: 404 afterwards, and what is learned next starts from nothing', async () => {
      const [learned] = (await backend.beliefs.learn(alice, [rule()], observe('s1'))).touched;
      if (!learned) throw new Error('nothing learned');

      await backend.beliefs.forget(alice, learned.id, [learned.revision]);

      await expect(backend.beliefs.inspect(alice, learned.id)).rejects.toBeInstanceOf(NotFoundError);
      const [relearned] = (await backend.beliefs.learn(alice, [rule()], observe('s2'))).touched;
      expect(relearned?.belief.values[0]?.support).toBe(1);
      expect(relearned?.revision).toBe(3);
    });

    it('answers a reset that keeps losing races with a retryable 503 rather than a short count', async () => {
      await backend.beliefs.learn(alice, [rule()], observe('s1'));
      const crowded = new Proxy(records, {
        get: (target, property) => {
          if (property === 'append') return async () => Promise.reject(new RevisionConflictError());
          const member = Reflect.get(target, property, target);
          return typeof member === 'function' ? member.bind(target) : member;
        },
      });
      const beliefs = new BeliefsService({
        revisions: crowded,
        heads: crowded,
        writer: new RevisionWriter({ revisions: crowded, ids, clock, backoff: async () => undefined }),
        clock,
        ids,
        learning: () => DEFAULT_CONFIG.learning,
      });

      await expect(beliefs.reset(alice, { kind: 'preference', agent: 'coder' })).rejects.toBeInstanceOf(
        ServiceUnavailableError,
      );
    });

    it("resets one agent's preferences, leaving the principal's own and other principals' alone", async () => {
      await backend.beliefs.learn(alice, [rule({ key: 'a' }), rule({ key: 'b' })], observe('s1'));
      await backend.beliefs.learn(alice, [rule({ key: 'c', agent: undefined, kind: 'profile' })], observe('s1'));
      await backend.beliefs.learn(bob, [rule({ key: 'a' })], observe('s1'));

      const reset = await backend.beliefs.reset(alice, { kind: 'preference', agent: 'coder' });

      expect(reset).toBe(2);
      expect((await backend.beliefs.list(alice, {}, { limit: 10 })).items.map(({ belief }) => belief.key)).toEqual([
        'c',
      ]);
      expect((await backend.beliefs.list(bob, { agent: 'coder' }, { limit: 10 })).items).toHaveLength(1);
    });
  });

  describe('Reads over time', () => {
    it('dates decay and expiry to when the horizon passed, the same on every read', async () => {
      const [learned] = (await backend.beliefs.learn(alice, [rule({ basis: 'declarative' })], observe('s1'))).touched;
      if (!learned) throw new Error('nothing learned');
      const start = clock.now().getTime();

      clock.advanceDays(75);
      const decayed = await backend.beliefs.inspect(alice, learned.id);
      clock.advanceDays(1);
      const decayedLater = await backend.beliefs.inspect(alice, learned.id);
      clock.advanceDays(120);
      const expired = await backend.beliefs.inspect(alice, learned.id);

      expect(decayed.belief.status).toBe('provisional');
      expect(decayed.belief.statusChangedAt).toBe(new Date(start + 60 * 86_400_000).toISOString());
      expect(decayedLater.belief.statusChangedAt).toBe(decayed.belief.statusChangedAt);
      expect(expired.belief.status).toBe('expired');
      expect(expired.belief.statusChangedAt).toBe(new Date(start + 180 * 86_400_000).toISOString());
    });
  });

  describe('Isolation', () => {
    it("answers another principal's belief id as absent on every path", async () => {
      const [learned] = (await backend.beliefs.learn(alice, [rule()], observe('s1'))).touched;
      if (!learned) throw new Error('nothing learned');

      await expect(backend.beliefs.inspect(bob, learned.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(backend.beliefs.history(bob, learned.id, { limit: 10 })).rejects.toBeInstanceOf(NotFoundError);
      await expect(backend.beliefs.correct(bob, learned.id, [learned.revision], { value: 'x' })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      await expect(backend.beliefs.forget(bob, learned.id, [learned.revision])).rejects.toBeInstanceOf(NotFoundError);
      expect((await backend.beliefs.inspect(alice, learned.id)).revision).toBe(1);
    });
  });
});

describe('Function: beliefIdOf / parseBeliefId', () => {
  it('names the kind and the agent but not the key, and reads back where the belief lives', () => {
    const own = beliefIdOf({ kind: 'profile', key: 'diet.allergy' });
    const agents = beliefIdOf({ kind: 'preference', agent: 'coder', key: 'diet.allergy' });

    expect(own).not.toContain('diet');
    expect(parseBeliefId(own)).toEqual({ kind: 'profile' });
    expect(parseBeliefId(agents)).toEqual({ kind: 'preference', agent: 'coder' });
    expect(parseBeliefId('note.abc')).toBeUndefined();
    expect(parseBeliefId('preference.a.b.c')).toBeUndefined();
    expect(parseBeliefId('01J0000000000000000000000A')).toBeUndefined();
  });
});
