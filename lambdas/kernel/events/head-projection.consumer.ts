import { DomainError } from '../errors/domain-error.ts';
import type { RecordKind, RecordKinds } from '../namespaces/record-kind.ts';
import { namespaceFromStorageKey } from '../namespaces/system-namespaces.ts';
import type { HeadProjection } from '../records/head-projection.port.ts';
import type { NamespaceDirectory } from '../records/namespace-directory.port.ts';
import type { ConsumeOutcome, EventConsumer } from './event-consumer.port.ts';
import type { RecordEvent } from './record-event.schema.ts';

/** A journal record (a session event) is its own head: there is no projection to keep. */
export const keepsHeadOf = (kind: RecordKind): boolean => !kind.journal;

/**
 * Keeps the head projection (what listings read) at each record's greatest committed revision, catching up a
 * head the writer could not move. The store moves a head forward only, so a duplicate or an older event
 * arriving late changes nothing. It copies the revision as stored, never reading content: the relay runs it.
 */
export class HeadProjectionConsumer implements EventConsumer {
  readonly name = 'head-projection';
  readonly #heads: Pick<HeadProjection, 'projectCommitted' | 'projectedRevision'>;
  readonly #directory: NamespaceDirectory;
  readonly #kinds: RecordKinds;

  constructor(deps: {
    heads: Pick<HeadProjection, 'projectCommitted' | 'projectedRevision'>;
    directory: NamespaceDirectory;
    /** Every record kind of the deployment: events of all of them arrive here. */
    kinds: RecordKinds;
  }) {
    this.#heads = deps.heads;
    this.#directory = deps.directory;
    this.#kinds = deps.kinds;
  }

  async consume(event: RecordEvent): Promise<ConsumeOutcome> {
    const kind = this.#kinds.get(event.record_kind);
    if (kind && !keepsHeadOf(kind)) return 'ignored';
    const entry = kind && (await this.#directory.resolve(event.tenant, event.namespace_hash));
    const namespace = entry && namespaceFromStorageKey(entry.key, this.#kinds);
    // The store records a namespace before its first commit, and the deployment declares every kind: an unknown
    // hash or kind is a fault, retried and then dead-lettered, not skipped.
    if (!namespace) throw new UnresolvedNamespaceError();
    // Most events arrive after the writer already moved the head: settle those without reading content.
    const projected = await this.#heads.projectedRevision(namespace, event.record_id);
    if (projected !== undefined && projected >= event.revision) return 'ignored';
    return (await this.#heads.projectCommitted(namespace, event.record_id, event.revision)) ? 'applied' : 'ignored';
  }
}

export class UnresolvedNamespaceError extends DomainError {
  readonly code = 'events.unresolved_namespace';

  constructor() {
    super('The event names a namespace the directory does not hold');
  }
}
