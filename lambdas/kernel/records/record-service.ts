import type { z } from 'zod';
import { NotFoundError } from '../errors/domain-error.ts';
import type { RecordEvent, RecordEventType } from '../events/record-event.schema.ts';
import { recordEventOf } from '../events/record-event-of.ts';
import { IDEMPOTENCY, type IdempotencyStore } from '../idempotency/idempotency-store.port.ts';
import type { Narrowing, Scope } from '../identity/scope.ts';
import type { Namespace, NamespaceOwner } from '../namespaces/namespace.ts';
import type { RecordKind } from '../namespaces/record-kind.ts';
import { assertNoSensitiveContent } from '../protection/sensitive-content-screen.ts';
import type { Clock } from '../time/clock.ts';
import { type IdGenerator, ULID_PATTERN } from '../time/ids.ts';
import { etagMatches, etagOf } from './etag.ts';
import {
  IdempotencyKeyReusedError,
  PreconditionFailedError,
  PreconditionRequiredError,
  RecordNotCommittedError,
  RevisionConflictError,
} from './record.errors.ts';
import type { Page, PageRequest, Provenance, RecordRevision } from './record.schema.ts';
import type { RecordStore } from './record-store.port.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** What a caller sees of one revision: never the namespace key, only who owns it in their own terms. */
export interface RecordView<Content> {
  readonly id: string;
  /** The record kind's name. */
  readonly kind: string;
  readonly owner: NamespaceOwner;
  readonly revision: number;
  readonly etag: string;
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
  readonly store: RecordStore;
  readonly idempotency: IdempotencyStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly idempotencyKeyHours: () => number;
}

/**
 * The lifecycle every long-term kind shares: create, read, list, revise under If-Match, delete as a
 * tombstone, and history — all append-only, all inside a namespace derived from the caller's Scope.
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
    const [write, work] = await Promise.allSettled([committing, dependent(this.#view(prepared.first), committed)]);
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
    const now = this.#deps.clock.now();
    const actor = { principal: scope.principal, client: scope.client };
    const parsed = this.#kind.content.parse(content);
    const first: RecordRevision = {
      id,
      namespace,
      revision: 1,
      status: 'active',
      content: this.#screened(parsed),
      provenance: { createdBy: actor, revisedBy: actor, sourceEventIds: [] },
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.#kind.horizonDays(narrowing, parsed) * DAY_MS).toISOString(),
    };
    return { namespace, first, replayed, idempotencyKey: idempotency?.key };
  }

  /** `ownWrite`: this request's revision 1 is the one stored (not a replay's, nor a concurrent attempt's). */
  async #commitCreate(prepared: PreparedCreate): Promise<{ result: CreateResult<Content>; ownWrite: boolean }> {
    const { namespace, first, replayed, idempotencyKey } = prepared;
    try {
      await this.#deps.store.append(first, this.#event(first, 'record.created', idempotencyKey));
      return { result: { record: this.#view(first), replayed }, ownWrite: true };
    } catch (error) {
      // Under an Idempotency-Key the record id belongs to the key: whoever of the first attempt and its replays
      // committed revision 1, every one of them answers with it.
      if (!(error instanceof RevisionConflictError) || idempotencyKey === undefined) throw error;
      const committed = await this.#deps.store.getRevision(namespace, first.id, 1);
      if (!committed) throw new NotFoundError({ cause: error });
      return { result: { record: this.#view(committed), replayed }, ownWrite: false };
    }
  }

  async get(scope: Scope, narrowing: Narrowing, id: string): Promise<RecordView<Content>> {
    return this.#view(await this.#liveHead(scope.namespace(this.#kind.kind, narrowing), id));
  }

  async list(scope: Scope, narrowing: Narrowing, page: PageRequest): Promise<Page<RecordView<Content>>> {
    const heads = await this.#deps.store.listHeads(scope.namespace(this.#kind.kind, narrowing), page);
    return { items: heads.items.map((head) => this.#view(head)), nextCursor: heads.nextCursor };
  }

  async history(scope: Scope, narrowing: Narrowing, id: string, page: PageRequest): Promise<Page<RecordView<Content>>> {
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    await this.#liveHead(namespace, id);
    const revisions = await this.#deps.store.listRevisions(namespace, id, page);
    return { items: revisions.items.map((revision) => this.#view(revision)), nextCursor: revisions.nextCursor };
  }

  /** Appends the revision `change` makes of the head the caller read (`ifMatch`); a stale ETag is 412. */
  async update(
    scope: Scope,
    narrowing: Narrowing,
    id: string,
    ifMatch: string | undefined,
    change: (current: Content) => Content,
  ): Promise<RecordView<Content>> {
    if (ifMatch === undefined) throw new PreconditionRequiredError();
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    const head = await this.#liveHead(namespace, id);
    this.#requireMatch(head, ifMatch);
    const successor = this.#successor(scope, head);
    const content = this.#screened(this.#kind.content.parse(change(this.#kind.content.parse(head.content))));
    const next: RecordRevision = {
      ...successor,
      content,
      expiresAt: new Date(
        Date.parse(successor.updatedAt) + this.#kind.horizonDays(narrowing, content) * DAY_MS,
      ).toISOString(),
    };
    await this.#commitSuccessor(namespace, next, 'record.revised');
    return this.#view(next);
  }

  /**
   * Creates the record `id` names, or replaces its content: a record that exists (and is not deleted) is
   * replaced only under a matching If-Match (428 without one, 412 when stale); one that does not is created,
   * and an If-Match then can only be stale (412). For records whose id is their name, such as guardrails.
   */
  async put(
    scope: Scope,
    narrowing: Narrowing,
    id: string,
    ifMatch: string | undefined,
    content: Content,
  ): Promise<{ record: RecordView<Content>; created: boolean }> {
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    if (!this.#idPattern.test(id)) throw new NotFoundError();
    const head = await this.#deps.store.getHead(namespace, id);
    const live = head?.status === 'active' ? head : undefined;
    if (live && ifMatch === undefined) throw new PreconditionRequiredError();
    if (ifMatch !== undefined && (!live || !etagMatches(ifMatch, live.id, live.revision)))
      throw new PreconditionFailedError(live ? etagOf(live.id, live.revision) : undefined);
    const checked = this.#screened(this.#kind.content.parse(content));
    const now = this.#deps.clock.now();
    const actor = { principal: scope.principal, client: scope.client };
    const next: RecordRevision = {
      id,
      namespace,
      revision: (head?.revision ?? 0) + 1,
      status: 'active',
      content: checked,
      provenance: {
        createdBy: live?.provenance.createdBy ?? actor,
        revisedBy: actor,
        sourceEventIds: [],
      },
      createdAt: live?.createdAt ?? now.toISOString(),
      updatedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.#kind.horizonDays(narrowing, checked) * DAY_MS).toISOString(),
    };
    await this.#commitSuccessor(namespace, next, live ? 'record.revised' : 'record.created');
    return { record: this.#view(next), created: live === undefined };
  }

  /** Appends a tombstone: content is dropped from the new revision and the record answers 404 from then on. */
  async remove(scope: Scope, narrowing: Narrowing, id: string, ifMatch: string | undefined): Promise<void> {
    if (ifMatch === undefined) throw new PreconditionRequiredError();
    const namespace = scope.namespace(this.#kind.kind, narrowing);
    const head = await this.#liveHead(namespace, id);
    this.#requireMatch(head, ifMatch);
    const tombstone: RecordRevision = { ...this.#successor(scope, head), status: 'deleted', content: null };
    await this.#commitSuccessor(namespace, tombstone, 'record.deleted');
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
    const head = await this.#deps.store.getHead(namespace, id);
    if (!head || head.status === 'deleted') throw new NotFoundError();
    return head;
  }

  #requireMatch(head: RecordRevision, ifMatch: string): void {
    if (!etagMatches(ifMatch, head.id, head.revision))
      throw new PreconditionFailedError(etagOf(head.id, head.revision));
  }

  #successor(scope: Scope, head: RecordRevision): RecordRevision {
    return {
      ...head,
      revision: head.revision + 1,
      provenance: { ...head.provenance, revisedBy: { principal: scope.principal, client: scope.client } },
      updatedAt: this.#deps.clock.now().toISOString(),
    };
  }

  /** Of two writers that read the same head, the store lets exactly one append; the other learns the new ETag. */
  async #commitSuccessor(namespace: Namespace, next: RecordRevision, type: RecordEventType): Promise<void> {
    try {
      await this.#deps.store.append(next, this.#event(next, type));
    } catch (error) {
      if (!(error instanceof RevisionConflictError)) throw error;
      const current = await this.#deps.store.getHead(namespace, next.id);
      if (!current) throw new NotFoundError({ cause: error });
      throw new PreconditionFailedError(etagOf(current.id, current.revision), { cause: error });
    }
  }

  #event(revision: RecordRevision, type: RecordEventType, idempotencyKey?: string): RecordEvent {
    return recordEventOf(revision, type, this.#deps.ids.next(), idempotencyKey);
  }

  #view(revision: RecordRevision): RecordView<Content> {
    return {
      id: revision.id,
      kind: revision.namespace.kind.name,
      owner: revision.namespace.owner,
      revision: revision.revision,
      etag: etagOf(revision.id, revision.revision),
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
