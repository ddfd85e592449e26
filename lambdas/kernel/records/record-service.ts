import type * as z from 'zod';
import { NotFoundError } from '../errors/domain-error.ts';
import { IDEMPOTENCY, type IdempotencyStore } from '../idempotency/idempotency-store.port.ts';
import type { Narrowing, Scope } from '../identity/scope.ts';
import type { Namespace, NamespaceOwner } from '../namespaces/namespace.ts';
import type { RecordKind } from '../namespaces/record-kind.ts';
import { assertNoSensitiveContent } from '../protection/sensitive-content-screen.ts';
import type { Clock } from '../time/clock.ts';
import { type IdGenerator, ULID_PATTERN } from '../time/ids.ts';
import type { HeadProjection } from './head-projection.port.ts';
import {
  ExpectedRevisionRequiredError,
  IdempotencyKeyReusedError,
  RecordNotCommittedError,
  RevisionConflictError,
  RevisionMismatchError,
} from './record.errors.ts';
import type { ExpectedRevisions, Page, PageRequest, Provenance, RecordRevision } from './record.schema.ts';
import type { RevisionStore } from './revision-store.port.ts';
import {
  isExpectedRevision,
  type RevisionWriter,
  requireExpectedRevision,
  requireExpectedRevisions,
} from './revision-writer.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** What a caller sees of one revision: never the namespace key, only who owns it in their own terms. */
export interface RecordView<Content> {
  readonly id: string;
  /** The record kind's name. */
  readonly kind: string;
  readonly owner: NamespaceOwner;
  readonly revision: number;
  readonly status: RecordRevision['status'];
  /** Null only on the tombstone revision a delete appends. */
  readonly content: Content | null;
  readonly provenance: Provenance;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly expiresAt: string;
}

export interface IdempotencyRequest {
  readonly key: string;
  readonly fingerprint: string;
}

export interface CreateResult<Content> {
  readonly record: RecordView<Content>;
  /** True when an Idempotency-Key replay returned the record the first request created. */
  readonly replayed: boolean;
}

interface PreparedCreate {
  readonly namespace: Namespace;
  readonly first: RecordRevision;
  readonly replayed: boolean;
  readonly idempotencyKey: string | undefined;
}

/** How the shared lifecycle treats one kind of record. */
export interface RecordServiceSpec<Content> {
  readonly kind: RecordKind;
  readonly content: z.ZodType<Content>;
  /**
   * Days a record lives after its latest revision, given where it is written and what it holds (either may
   * name the agent whose settings apply).
   */
  readonly horizonDays: (narrowing: Narrowing, content: Content) => number;
  /** What a record id of this kind looks like; anything else is answered as absent. ULIDs by default. */
  readonly idPattern?: RegExp | undefined;
  /**
   * The guard before every write. Long-term kinds leave it out and get `assertNoSensitiveContent`; only
   * short-term memory (session events: encrypted, expiring, never shared) may hold what that refuses.
   */
  readonly screen?: ((content: Content) => void) | undefined;
}

export interface RecordServiceDependencies {
  readonly revisions: Pick<RevisionStore, 'getHead' | 'getRevision' | 'listRevisions'>;
  readonly heads: Pick<HeadProjection, 'listHeads'>;
  readonly writer: RevisionWriter;
  readonly idempotency: IdempotencyStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly idempotencyKeyHours: () => number;
}

/**
 * The lifecycle every long-term kind shares: create, read, list, revise the revision the caller read, delete
 * as a tombstone, and history — all append-only through the revision writer, all inside a namespace derived
 * from the caller's Scope.
 */
export class RecordService<Content> {
  readonly #deps: RecordServiceDependencies;
  readonly #kind: RecordServiceSpec<Content>;

  constructor(deps: RecordServiceDependencies, kind: RecordServiceSpec<Content>) {
    this.#deps = deps;
    this.#kind = kind;
  }

  async create(
    scope: Scope,
    narrowing: Narrowing,
    content: Content,
    idempotency?: IdempotencyRequest,
  ): Promise<CreateResult<Content>> {
    return (await this.#commitCreate(await this.#prepareCreate(scope, narrowing, content, idempotency))).result;
  }

  /**
   * Creates the record and runs `dependent` beside the write, handing it the record as it is being committed
   * and a promise of that commit: work that refers to the record (a belief citing the event that taught it)
   * is prepared while the record is written, and its own writes wait for the commit (`AppendOptions.after`),
   * so nothing refers to a record that was never stored. `committed` rejects when this request's write did
   * not commit; an Idempotency-Key replay runs `dependent` afterwards, on the record as first committed.
   */
  async createWith<T>(
    scope: Scope,
    narrowing: Narrowing,
    content: Content,
    idempotency: IdempotencyRequest | undefined,
    dependent: (record: RecordView<Content>, committed: Promise<void>) => Promise<T>,
  ): Promise<CreateResult<Content> & { readonly dependent: T }> {
    const prepared = await this.#prepareCreate(scope, narrowing, content, idempotency);
    if (prepared.replayed) {
      const { result } = await this.#commitCreate(prepared);
      return { ...result, dependent: await dependent(result.record, Promise.resolve()) };
    }
    const committing = this.#commitCreate(prepared);
    const committed = committing.then(
      ({ ownWrite }) => {
        if (!ownWrite) throw new RecordNotCommittedError();
      },
      (error: unknown) => {
        throw new RecordNotCommittedError({ cause: error });
      },
    );
    // Dependent work that writes nothing never awaits it; its rejection is still answered below.
    committed.catch(() => undefined);
    const [write, work] = await Promise.allSettled([committing, dependent(this.view(prepared.first), committed)]);
    if (write.status === 'rejected') throw write.reason;
    // A concurrent replay committed the record first: the dependent work wrote nothing; do it on that record.
    if (!write.value.ownWrite) {
      return { ...write.value.result, dependent: await dependent(write.value.result.record, Promise.resolve()) };
    }
    if (work.status === 'rejected') throw work.reason;
    return { ...write.value.result, dependent: work.value };
  }

  async #prepareCreate(
    scope: Scope,
    narrowing: Narrowing,
    content: Content,
    idempotency: IdempotencyRequest | undefined,
  ): Promise<PreparedCreate> {
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    let id = this.#deps.ids.next();
    let replayed = false;
    if (idempotency) {
      const claim = await this.#deps.idempotency.claim(scope.namespace(IDEMPOTENCY), idempotency.key, {
        fingerprint: idempotency.fingerprint,
        recordId: id,
        expiresAt: this.#after(this.#deps.idempotencyKeyHours() * HOUR_MS),
      });
      if (claim.outcome === 'existing') {
        if (claim.fingerprint !== idempotency.fingerprint) throw new IdempotencyKeyReusedError();
        id = claim.recordId;
        replayed = true;
      }
    }
    const parsed = this.#screened(this.#kind.content.parse(content));
    const first = this.#deps.writer.next(namespace, id, undefined, scope.actor, {
      content: parsed,
      expiresAt: this.#expiry(narrowing, parsed),
    });
    return { namespace, first, replayed, idempotencyKey: idempotency?.key };
  }

  /** `ownWrite`: this request's revision 1 is the one stored (not a replay's, nor a concurrent attempt's). */
  async #commitCreate(prepared: PreparedCreate): Promise<{ result: CreateResult<Content>; ownWrite: boolean }> {
    const { namespace, first, replayed, idempotencyKey } = prepared;
    try {
      await this.#deps.writer.append(first, 'record.created', { idempotencyKey });
      return { result: { record: this.view(first), replayed }, ownWrite: true };
    } catch (error) {
      // Under an Idempotency-Key the record id belongs to the key: whoever of the first attempt and its replays
      // committed revision 1, every one of them answers with it.
      if (!(error instanceof RevisionConflictError) || idempotencyKey === undefined) throw error;
      const committed = await this.#deps.revisions.getRevision(namespace, first.id, 1);
      if (!committed) throw new NotFoundError({ cause: error });
      return { result: { record: this.view(committed), replayed }, ownWrite: false };
    }
  }

  async get(scope: Scope, narrowing: Narrowing, id: string): Promise<RecordView<Content>> {
    return this.view(await this.#liveHead(scope.namespace(this.#kind.kind, narrowing), id));
  }

  async list(scope: Scope, narrowing: Narrowing, page: PageRequest): Promise<Page<RecordView<Content>>> {
    const heads = await this.#deps.heads.listHeads(scope.namespace(this.#kind.kind, narrowing), page);
    return { items: heads.items.map((head) => this.view(head)), nextCursor: heads.nextCursor };
  }

  /** Every live record of the namespace, page by page, for the service's own reads of a whole (bounded) space. */
  async listAll(scope: Scope, narrowing: Narrowing, pageSize = 100): Promise<RecordView<Content>[]> {
    const all: RecordView<Content>[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.list(scope, narrowing, { limit: pageSize, cursor });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return all;
  }

  async history(scope: Scope, narrowing: Narrowing, id: string, page: PageRequest): Promise<Page<RecordView<Content>>> {
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    await this.#liveHead(namespace, id);
    const revisions = await this.#deps.revisions.listRevisions(namespace, id, page);
    return { items: revisions.items.map((revision) => this.view(revision)), nextCursor: revisions.nextCursor };
  }

  /**
   * Appends the revision `change` makes of the head the caller read (`expected`): naming none is refused before
   * anything is read, a stale one is a mismatch.
   */
  async update(
    scope: Scope,
    narrowing: Narrowing,
    id: string,
    expected: ExpectedRevisions | undefined,
    change: (current: Content) => Content,
  ): Promise<RecordView<Content>> {
    const named = requireExpectedRevisions(expected);
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    const head = await this.#liveHead(namespace, id);
    requireExpectedRevision(head, named);
    const content = this.#screened(this.#kind.content.parse(change(this.#kind.content.parse(head.content))));
    const next = this.#deps.writer.next(namespace, id, head, scope.actor, {
      content,
      expiresAt: this.#expiry(narrowing, content),
    });
    await this.#deps.writer.appendExpected(next, 'record.revised');
    return this.view(next);
  }

  /**
   * Appends the revision `change` makes of whatever head is current, for the service's own read-modify-writes
   * where no caller named a revision (a status move, a counter, a log): a lost race reads the head again and
   * changes it again, with the revision writer's bounded, jittered back-off. A record that is absent (or
   * deleted) is NotFound, unless `createIfAbsent`, when `change` starts from `undefined`.
   */
  async reviseCurrent(
    scope: Scope,
    narrowing: Narrowing,
    id: string,
    change: (current: Content | undefined) => Content,
    options: { readonly createIfAbsent?: boolean } = {},
  ): Promise<RecordView<Content>> {
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    if (!this.#idPattern.test(id)) throw new NotFoundError();
    return this.#deps.writer.update(
      namespace,
      id,
      (head) => {
        const live = head?.status === 'active' ? head : undefined;
        if (!live && !options.createIfAbsent) throw new NotFoundError();
        const content = this.#screened(
          this.#kind.content.parse(change(live && this.#kind.content.parse(live.content))),
        );
        const next = this.#deps.writer.next(namespace, id, head, scope.actor, {
          content,
          expiresAt: this.#expiry(narrowing, content),
        });
        return { write: next, type: live ? 'record.revised' : 'record.created', result: this.view(next) };
      },
      { busy: 'The record is being changed by many writers at once; retry shortly' },
    );
  }

  /**
   * Creates the record `id` names, or replaces its content: a record that exists (and is not deleted) is
   * replaced only when `expected` names its latest revision (ExpectedRevisionRequired without one, a mismatch
   * when stale); one that does not is created, and an expected revision then can only be stale. For records
   * whose id is their name, such as guardrails.
   */
  async put(
    scope: Scope,
    narrowing: Narrowing,
    id: string,
    expected: ExpectedRevisions | undefined,
    content: Content,
  ): Promise<{ record: RecordView<Content>; created: boolean }> {
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    if (!this.#idPattern.test(id)) throw new NotFoundError();
    const head = await this.#deps.revisions.getHead(namespace, id);
    const live = head?.status === 'active' ? head : undefined;
    if (live && expected === undefined) throw new ExpectedRevisionRequiredError();
    if (expected !== undefined && (!live || !isExpectedRevision(live, expected)))
      throw new RevisionMismatchError(id, live?.revision);
    const checked = this.#screened(this.#kind.content.parse(content));
    const next = this.#deps.writer.next(namespace, id, head, scope.actor, {
      content: checked,
      expiresAt: this.#expiry(narrowing, checked),
      sourceEventIds: [],
    });
    await this.#deps.writer.appendExpected(next, live ? 'record.revised' : 'record.created');
    return { record: this.view(next), created: live === undefined };
  }

  /**
   * Appends a tombstone, under the revision the caller read (as `update`): content is dropped from the new
   * revision and the record answers 404 from then on.
   */
  async remove(scope: Scope, narrowing: Narrowing, id: string, expected: ExpectedRevisions | undefined): Promise<void> {
    const named = requireExpectedRevisions(expected);
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    const head = await this.#liveHead(namespace, id);
    requireExpectedRevision(head, named);
    await this.#deps.writer.appendExpected(this.#deps.writer.tombstone(head, scope.actor), 'record.deleted');
  }

  /** Long-term memory holds no personal identifiers or secrets: refused fail-closed, the value never echoed. */
  #screened(content: Content): Content {
    (this.#kind.screen ?? assertNoSensitiveContent)(content);
    return content;
  }

  get #idPattern(): RegExp {
    return this.#kind.idPattern ?? ULID_PATTERN;
  }

  async #liveHead(namespace: Namespace, id: string): Promise<RecordRevision> {
    if (!this.#idPattern.test(id)) throw new NotFoundError();
    const head = await this.#deps.revisions.getHead(namespace, id);
    if (!head || head.status === 'deleted') throw new NotFoundError();
    return head;
  }

  /** Days from now to the horizon of the kind, given where it is written and what it holds. */
  #expiry(narrowing: Narrowing, content: Content): string {
    return new Date(
      this.#deps.clock.now().getTime() + this.#kind.horizonDays(narrowing, content) * DAY_MS,
    ).toISOString();
  }

  /** The API's view of a revision of this kind: the envelope, with the content parsed by the kind's schema. */
  view(revision: RecordRevision): RecordView<Content> {
    return {
      id: revision.id,
      kind: revision.namespace.kind.name,
      owner: revision.namespace.owner,
      revision: revision.revision,
      status: revision.status,
      content: revision.status === 'deleted' ? null : this.#kind.content.parse(revision.content),
      provenance: revision.provenance,
      createdAt: revision.createdAt,
      updatedAt: revision.updatedAt,
      expiresAt: revision.expiresAt,
    };
  }

  #after(milliseconds: number): string {
    return new Date(this.#deps.clock.now().getTime() + milliseconds).toISOString();
  }
}
