import { afterEach, beforeEach } from 'vitest';
import type { Outbox } from '../../lambdas/kernel/events/outbox.port.ts';
import type { HeadProjection } from '../../lambdas/kernel/records/head-projection.port.ts';
import type { NamespaceDirectory } from '../../lambdas/kernel/records/namespace-directory.port.ts';
import type { RecordRevision } from '../../lambdas/kernel/records/record.schema.ts';
import type { RecordMaintenance } from '../../lambdas/kernel/records/record-maintenance.port.ts';
import type { RevisionStore } from '../../lambdas/kernel/records/revision-store.port.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { KINDS } from '../support/record-kinds.ts';
import { eventOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

/** The five record ports over one storage: what each port's contract suite is given to set up and assess. */
export interface RecordStorage {
  readonly revisions: RevisionStore;
  readonly heads: HeadProjection;
  readonly outbox: Outbox;
  readonly directory: NamespaceDirectory;
  readonly maintenance: RecordMaintenance;
}

export interface RecordStorageFixture {
  readonly storage: RecordStorage;
  close(): Promise<void>;
}

export type CreateRecordStorage = (clock: ManualClock) => Promise<RecordStorageFixture>;

/**
 * A fresh storage per test, on a clock the test moves, and the namespaces the suites write to. Each port's
 * suite runs against the in-memory fake and against the DynamoDB adapters on the embedded engine, so the
 * fake the unit tests rely on cannot drift from the real adapters.
 */
export const recordStorageContext = (create: CreateRecordStorage) => {
  const context = {
    clock: new ManualClock('2026-06-01T00:00:00.000Z'),
    storage: undefined as unknown as RecordStorage,
    alice: scopeOf({ tenant: 'acme', sub: 'alice', groups: ['project:p7:member'] }),
    get notes() {
      return context.alice.namespace(KINDS.note);
    },
    /** Appends `revision` with its event, as the revision writer does. */
    append: async (revision: RecordRevision) => {
      await context.storage.revisions.append(revision, eventOf(revision));
      return revision;
    },
  };
  let fixture: RecordStorageFixture | undefined;
  beforeEach(async () => {
    context.clock = new ManualClock('2026-06-01T00:00:00.000Z');
    fixture = await create(context.clock);
    context.storage = fixture.storage;
  });
  afterEach(async () => {
    await fixture?.close();
  });
  return context;
};
