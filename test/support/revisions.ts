import type { RecordEvent } from '../../lambdas/kernel/events/record-event.schema.ts';
import { recordEventOf } from '../../lambdas/kernel/events/record-event-of.ts';
import type { Namespace } from '../../lambdas/kernel/namespaces/namespace.ts';
import type { RecordRevision } from '../../lambdas/kernel/records/record.schema.ts';
import { createUlidGenerator } from '../../lambdas/kernel/time/ids.ts';
import { KINDS } from './record-kinds.ts';
import { scopeOf } from './scopes.ts';

const ids = createUlidGenerator();

export const newRecordId = (): string => ids.next();

/** A revision as the RecordService would build it, with overridable fields. */
export const revisionOf = (
  namespace: Namespace,
  id: string,
  revision: number,
  overrides: Partial<Omit<RecordRevision, 'namespace' | 'id' | 'revision'>> = {},
): RecordRevision => ({
  id,
  namespace,
  revision,
  status: 'active',
  content: { text: `note ${id} revision ${revision}`, tags: [] },
  provenance: {
    createdBy: { principal: 'alice', client: 'test-client' },
    revisedBy: { principal: 'alice', client: 'test-client' },
    sourceEventIds: [],
  },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2027-01-01T00:00:00.000Z',
  ...overrides,
});

export const eventOf = (revision: RecordRevision): RecordEvent =>
  recordEventOf(revision, revision.revision === 1 ? 'record.created' : 'record.revised', ids.next());

/** The event of a new note's first revision, in the default caller's namespace: what a publisher or queue is handed. */
export const noteEvent = (): RecordEvent => eventOf(revisionOf(scopeOf().namespace(KINDS.note), newRecordId(), 1));

/** `count` events of new notes, as `noteEvent` makes them. */
export const noteEventsOf = (count: number): RecordEvent[] => Array.from({ length: count }, noteEvent);
