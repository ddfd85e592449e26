import { beforeEach, describe, expect, it } from 'vitest';
import type { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { SessionEventInput } from '../../../lambdas/capabilities/learning/session-event.schema.ts';
import { ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import type { AppendOptions } from '../../../lambdas/kernel/records/revision-store.port.ts';
import type { Backend } from '../../support/in-memory-backend.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';
import { declaredSignal } from '../../support/learning-events.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';

type Append = InMemoryRecordStore['append'];

describe('Class: SessionEventsService', () => {
  let backend: Backend;
  let records: InMemoryRecordStore;
  let append: Append;
  const alice = scopeOf({ sub: 'alice' });
  const signal = SessionEventInput.parse(declaredSignal('response.tone', 'formal'));
  const preferences = alice.namespace(KINDS.preference);

  beforeEach(() => {
    ({ backend, records } = inMemoryBackend());
    append = records.append.bind(records);
  });

  /** Holds the session event's write until `release` is called; logs when each kind's write is asked and done. */
  const holdEventWrite = () => {
    const log: string[] = [];
    let release: (outcome?: Error) => void = () => undefined;
    const held = new Promise<void>((resolve, reject) => {
      release = (outcome) => (outcome ? reject(outcome) : resolve());
    });
    records.append = (async (revision, event, options?: AppendOptions) => {
      const kind = revision.namespace.kind.name;
      log.push(`asked ${kind}`);
      if (kind === 'session-events') await held;
      await append(revision, event, options);
      log.push(`written ${kind}`);
    }) as Append;
    return { log, release };
  };

  it('prepares the belief while the event is written, and writes it only after the event has committed', async () => {
    const { log, release } = holdEventWrite();

    const appending = backend.sessionEvents.append(alice, 's1', signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['asked session-events', 'asked preference']);
    expect((await records.listHeads(preferences, { limit: 10 })).items).toEqual([]);
    release();
    const appended = await appending;

    expect(log).toEqual(['asked session-events', 'asked preference', 'written session-events', 'written preference']);
    expect(appended.beliefs).toMatchObject([{ belief: { key: 'response.tone', status: 'mature' } }]);
    expect(appended.beliefs[0]?.belief.values[0]?.evidence.map((entry) => entry.event)).toEqual([appended.event.id]);
  });

  it('writes no belief when the event could not be stored, and answers with the event write failure', async () => {
    const { log, release } = holdEventWrite();

    const appending = backend.sessionEvents.append(alice, 's1', signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release(new ServiceUnavailableError('the table is throttling'));

    await expect(appending).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(log).toEqual(['asked session-events', 'asked preference']);
    expect((await records.listHeads(preferences, { limit: 10 })).items).toEqual([]);
    expect(await records.pendingEvents(10)).toEqual([]);
  });

  it('learns a replayed request (same Idempotency-Key) on the event as first stored, once', async () => {
    const idempotency = { key: 'k1', fingerprint: 'f1' };
    const first = await backend.sessionEvents.append(alice, 's1', signal, idempotency);
    const again = await backend.sessionEvents.append(alice, 's1', signal, idempotency);

    expect(again.replayed).toBe(true);
    expect(again.event.id).toBe(first.event.id);
    expect(again.beliefs[0]?.belief.values[0]?.support).toBe(1);
    expect((await records.listRevisions(preferences, first.beliefs[0]?.id ?? '', { limit: 10 })).items).toHaveLength(1);
  });

  it('counts a request once when its replay stores the event first, while the request itself is still writing', async () => {
    const idempotency = { key: 'k2', fingerprint: 'f2' };
    let holdFirst: (() => void) | undefined;
    const firstHeld = new Promise<void>((resolve) => {
      holdFirst = resolve;
    });
    let eventWrites = 0;
    records.append = (async (revision, event, options?: AppendOptions) => {
      if (revision.namespace.kind.name === 'session-events' && ++eventWrites === 1) await firstHeld;
      await append(revision, event, options);
    }) as Append;

    const original = backend.sessionEvents.append(alice, 's1', signal, idempotency);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The replay finds the key taken, stores the event itself, then waits for the belief the original holds.
    const replaying = backend.sessionEvents.append(alice, 's1', signal, idempotency);
    await new Promise((resolve) => setTimeout(resolve, 20));
    holdFirst?.();
    const [answered, replay] = await Promise.all([original, replaying]);

    expect(replay.replayed).toBe(true);
    expect(answered.event.id).toBe(replay.event.id);
    expect(answered.beliefs[0]?.belief.values[0]?.support).toBe(1);
    expect((await records.listRevisions(preferences, replay.beliefs[0]?.id ?? '', { limit: 10 })).items).toHaveLength(
      1,
    );
  });
});
