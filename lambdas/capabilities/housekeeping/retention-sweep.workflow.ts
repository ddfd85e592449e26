import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { RecordKinds } from '../../kernel/namespaces/record-kind.ts';
import { namespaceFromStorageKey, systemActor } from '../../kernel/namespaces/system-namespaces.ts';
import type { NamespaceDirectory } from '../../kernel/records/namespace-directory.port.ts';
import { RevisionConflictError } from '../../kernel/records/record.errors.ts';
import type { RecordRevision } from '../../kernel/records/record.schema.ts';
import type { RecordMaintenance } from '../../kernel/records/record-maintenance.port.ts';
import type { RevisionStore } from '../../kernel/records/revision-store.port.ts';
import type { RevisionWriter } from '../../kernel/records/revision-writer.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { CATCH_ALL, STANDARD_RETRY, type WorkflowPolicy } from '../../kernel/workflows/workflow-definition.ts';
import type { StepInput, WorkflowImplementation } from '../../kernel/workflows/workflow-step-executor.ts';

const DAY_MS = 86_400_000;
const PAGE = 100;

/** Expired records get a tombstone; revisions and events past their horizon are purged; the run reports counts. */
export const RETENTION_SWEEP: WorkflowPolicy = {
  name: 'retention-sweep',
  description: 'Tombstones expired records and purges revisions and events past their retention horizon',
  schedule: 'rate(1 day)',
  steps: [
    { name: 'tombstone-expired-records', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'purge-past-horizon', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'report', retry: STANDARD_RETRY, catch: CATCH_ALL },
  ],
  onFailure: 'record-failure',
};

export interface RetentionSweepDependencies {
  readonly revisions: Pick<RevisionStore, 'getHead'>;
  readonly maintenance: Pick<RecordMaintenance, 'listExpiredHeads' | 'purge'>;
  readonly directory: NamespaceDirectory;
  readonly clock: Clock;
  readonly writer: RevisionWriter;
  /** Every record kind of the deployment: the sweep walks every namespace in the directory. */
  readonly kinds: RecordKinds;
  /** Days a record stays (as a tombstone, or expired) before every item of it is purged. */
  readonly purgeAfterDays: () => number;
}

/**
 * The retention sweep's steps. Expired records that are still active get a tombstone revision (with a
 * `record.expired` event, so projections and the audit trail learn of it); records whose expiry lies
 * more than the purge horizon back lose every stored item. Reads filter expired items anyway: the sweep
 * makes retention visible and bounded, and does locally what DynamoDB's TTL does late in AWS.
 */
export const retentionSweep = (deps: RetentionSweepDependencies): WorkflowImplementation => {
  const forEachExpiredHead = async (
    input: StepInput,
    expiredBefore: string,
    act: (namespace: Namespace, head: RecordRevision) => Promise<number>,
  ): Promise<number> => {
    let total = 0;
    let cursor: string | undefined;
    do {
      const page = await deps.directory.list({ limit: PAGE, cursor, tenant: input.tenant ?? undefined });
      for (const entry of page.items) {
        const namespace = namespaceFromStorageKey(entry.key, deps.kinds);
        if (!namespace) continue;
        let headCursor: string | undefined;
        do {
          const heads = await deps.maintenance.listExpiredHeads(namespace, {
            limit: PAGE,
            cursor: headCursor,
            expiredBefore,
          });
          for (const head of heads.items) total += await act(namespace, head);
          headCursor = heads.nextCursor;
        } while (headCursor);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return total;
  };

  const tombstone = async (namespace: Namespace, head: RecordRevision): Promise<number> => {
    // A journal record (a session event) is written once: expiry hides it, the purge below removes it.
    if (head.status !== 'active' || namespace.kind.journal) return 0;
    try {
      await deps.writer.append(deps.writer.tombstone(head, systemActor(RETENTION_SWEEP.name)), 'record.expired');
      return 1;
    } catch (error) {
      // Revised meanwhile: the new revision carries a new expiry; the next sweep judges it again.
      if (error instanceof RevisionConflictError) return 0;
      throw error;
    }
  };

  return {
    policy: RETENTION_SWEEP,
    steps: {
      'tombstone-expired-records': async (input) => {
        const tombstoned = await forEachExpiredHead(input, deps.clock.now().toISOString(), tombstone);
        return { ...input, counts: { ...input.counts, tombstoned } };
      },
      'purge-past-horizon': async (input) => {
        let purgedRecords = 0;
        const horizon = new Date(deps.clock.now().getTime() - deps.purgeAfterDays() * DAY_MS).toISOString();
        const purgedItems = await forEachExpiredHead(input, horizon, async (namespace, head) => {
          // The head projection may lag behind a later, live revision: purge only when the record's canonical
          // head (its greatest revision) has expired too.
          if ((await deps.revisions.getHead(namespace, head.id)) !== undefined) return 0;
          purgedRecords += 1;
          return deps.maintenance.purge(namespace, head.id);
        });
        return { ...input, counts: { ...input.counts, purgedRecords, purgedItems } };
      },
      report: async (input) => input,
      'record-failure': async (input) => input,
    },
  };
};
