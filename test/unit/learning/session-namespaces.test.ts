import { beforeEach, describe, expect, it } from 'vitest';
import { SessionEventInput } from '../../../lambdas/capabilities/learning/session-event.schema.ts';
import type { Backend } from '../../support/in-memory-backend.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';

/** A turn of the conversation: stored in its session, teaching nothing, so only the event itself is written. */
const turn = (text: string) => SessionEventInput.parse({ type: 'message', role: 'user', text });

describe('Class: SessionEventsService', () => {
  let backend: Backend;
  const alice = scopeOf({ sub: 'alice' });

  beforeEach(() => {
    ({ backend } = inMemoryBackend());
  });

  describe('Method: list', () => {
    it("lists one session's events only, never another session's of the same principal", async () => {
      // Prepare
      const inFirst = await backend.sessionEvents.append(alice, 's1', turn('said in s1'));
      const inSecond = await backend.sessionEvents.append(alice, 's2', turn('said in s2'));
      // A session whose name begins with another's is a session of its own too.
      const inLonger = await backend.sessionEvents.append(alice, 's10', turn('said in s10'));

      // Act
      const first = await backend.sessionEvents.list(alice, 's1', { limit: 10 });
      const second = await backend.sessionEvents.list(alice, 's2', { limit: 10 });
      const longer = await backend.sessionEvents.list(alice, 's10', { limit: 10 });
      const unused = await backend.sessionEvents.list(alice, 's3', { limit: 10 });

      // Assess
      expect(first.items.map((event) => event.id)).toEqual([inFirst.event.id]);
      expect(second.items.map((event) => event.id)).toEqual([inSecond.event.id]);
      expect(longer.items.map((event) => event.id)).toEqual([inLonger.event.id]);
      expect(unused.items).toEqual([]);
      expect(first.items[0]?.owner).toEqual({ type: 'principal', session: 's1' });
    });
  });
});

describe('Class: Scope', () => {
  describe('Method: namespace', () => {
    it('gives each session of one principal its own storage key, apart from the un-narrowed space', () => {
      // Prepare
      const alice = scopeOf({ tenant: 'acme', sub: 'alice' });

      // Act
      const keys = ['s1', 's2', 's10'].map((session) => alice.namespace(KINDS['session-events'], { session }).key);
      const unnarrowed = alice.namespace(KINDS['session-events']).key;

      // Assess
      expect(keys).toEqual([
        't/acme/p/alice/session-events/s/s1',
        't/acme/p/alice/session-events/s/s2',
        't/acme/p/alice/session-events/s/s10',
      ]);
      expect(unnarrowed).toBe('t/acme/p/alice/session-events');
    });
  });
});
