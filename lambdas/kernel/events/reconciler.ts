import type { RecordKinds } from '../namespaces/record-kind.ts';
import { namespaceFromStorageKey } from '../namespaces/system-namespaces.ts';
import type { HeadProjection } from '../records/head-projection.port.ts';
import type { NamespaceDirectory } from '../records/namespace-directory.port.ts';
import type { RecordRevision } from '../records/record.schema.ts';
import type { RecordMaintenance } from '../records/record-maintenance.port.ts';
import type { RevisionStore } from '../records/revision-store.port.ts';
import type { NamespaceRebuilder } from '../search/search-projection.ts';
import type { OutboxRelay } from './outbox-relay.ts';

export interface ReconcileReport {
  readonly namespaces: number;
  readonly records: number;
  /** Head projections that were missing or behind their record's greatest revision, and were moved. */
  readonly headsRepaired: number;
  /** Committed events still marked in the outbox, published now. */
  readonly eventsRepublished: number;
  /** Outbox events that still could not be published (the bus is still down). */
  readonly eventsStillPending: number;
  /** Namespace projections rebuilt from the canonical heads (the search index), one per namespace and rebuilder. */
  readonly projectionsRebuilt: number;
}

const PAGE = 100;

export interface ReconcilerDependencies {
  readonly revisions: Pick<RevisionStore, 'getHead'>;
  readonly heads: Pick<HeadProjection, 'projectHead' | 'projectedRevision'>;
  readonly maintenance: Pick<RecordMaintenance, 'listRecordIds'>;
  readonly directory: NamespaceDirectory;
  /** Publishes what the outbox still holds; without it (a job that only rebuilds projections) nothing is swept. */
  readonly relay?: OutboxRelay | undefined;
  /** Every record kind of the deployment: the directory holds namespaces of all of them. */
  readonly kinds: RecordKinds;
  /** Derived projections rebuilt from each namespace's heads once its heads are repaired. */
  readonly rebuilders?: readonly NamespaceRebuilder[] | undefined;
}

/**
 * Rebuilds projections from canonical state: every record's head projection is moved to its greatest
 * committed revision, each namespace's derived projections (the search index) are rebuilt from its heads, and
 * every event still in the outbox is published. Says what it repaired.
 */
export class Reconciler {
  readonly #deps: ReconcilerDependencies;

  constructor(deps: ReconcilerDependencies) {
    this.#deps = deps;
  }

  /**
   * With `onlyRebuilt`, namespaces no rebuilder handles are left alone (their heads unrepaired): a job that
   * rebuilds the search index need not walk every session's journal.
   */
  async run(options: { tenant?: string | undefined; onlyRebuilt?: boolean } = {}): Promise<ReconcileReport> {
    let namespaces = 0;
    let records = 0;
    let headsRepaired = 0;
    let projectionsRebuilt = 0;
    let cursor: string | undefined;
    do {
      const page = await this.#deps.directory.list({ limit: PAGE, cursor, tenant: options.tenant });
      for (const entry of page.items) {
        const namespace = namespaceFromStorageKey(entry.key, this.#deps.kinds);
        if (!namespace) continue;
        const rebuilders = (this.#deps.rebuilders ?? []).filter((rebuilder) => rebuilder.handles(namespace.kind));
        if (rebuilders.length === 0 && options.onlyRebuilt) continue;
        namespaces += 1;
        // Walks the namespace's records once, repairing heads; what it gathers is each rebuilder's canonical state.
        const walk = async () => {
          const live: RecordRevision[] = [];
          const ended: [string, number][] = [];
          let recordCursor: string | undefined;
          do {
            const ids = await this.#deps.maintenance.listRecordIds(namespace, { limit: PAGE, cursor: recordCursor });
            for (const id of ids.items) {
              records += 1;
              const head = await this.#deps.revisions.getHead(namespace, id);
              if (head && (await this.#deps.heads.projectHead(head))) headsRepaired += 1;
              if (rebuilders.length === 0) continue;
              if (head) live.push(head);
              else ended.push([id, (await this.#deps.heads.projectedRevision(namespace, id)) ?? 1]);
            }
            recordCursor = ids.nextCursor;
          } while (recordCursor);
          return { live, ended };
        };
        if (rebuilders.length === 0) await walk();
        // The first rebuilder walks (it decides when, against its own log); the others reuse what it read.
        let walked: ReturnType<typeof walk> | undefined;
        const walkOnce = () => {
          walked = walked ?? walk();
          return walked;
        };
        for (const rebuilder of rebuilders) {
          await rebuilder.rebuild(namespace, walkOnce);
          projectionsRebuilt += 1;
        }
      }
      cursor = page.nextCursor;
    } while (cursor);
    const relayed = (await this.#deps.relay?.sweep()) ?? { published: 0, failed: 0 };
    return {
      namespaces,
      records,
      headsRepaired,
      eventsRepublished: relayed.published,
      eventsStillPending: relayed.failed,
      projectionsRebuilt,
    };
  }
}
