import { NotFoundError, ServiceUnavailableError } from '../errors/domain-error.ts';
import type { RecordEventType } from '../events/record-event.schema.ts';
import { recordEventOf } from '../events/record-event-of.ts';
import type { Namespace } from '../namespaces/namespace.ts';
import { again, type Backoff, done, fullJitter, retrying } from '../retry/retry.ts';
import type { Clock } from '../time/clock.ts';
import type { IdGenerator } from '../time/ids.ts';
import { ExpectedRevisionRequiredError, RevisionConflictError, RevisionMismatchError } from './record.errors.ts';
import type { Actor, ExpectedRevisions, RecordRevision, RecordStatus } from './record.schema.ts';
import type { AppendOptions, RevisionStore } from './revision-store.port.ts';

/** A writer that keeps losing the race for the next revision backs off and tries again, this many times. */
export const MAX_WRITE_ATTEMPTS = 25;
const BACKOFF = { baseMs: 4, capMs: 128 };

/** What a new revision says; who made it, when, and its number come from the writer. */
export interface RevisionChange {
  readonly status?: RecordStatus | undefined;
  /** The kind's content; null on a tombstone. */
  readonly content: unknown;
  readonly expiresAt: string;
  /** Absent: a live record keeps its sources, a new one has none. */
  readonly sourceEventIds?: readonly string[] | undefined;
}

/** What an optimistic update decided from the head it read: write one more revision, or nothing. */
export type UpdateDecision<T> =
  | { readonly write: RecordRevision; readonly type: RecordEventType; readonly result: T }
  | { readonly keep: T };

export interface RevisionWriterDependencies {
  readonly revisions: Pick<RevisionStore, 'append' | 'getHead'>;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  /** How a writer that lost a race waits before reading again; full jitter unless a test makes it instant. */
  readonly backoff?: Backoff | undefined;
}

/**
 * The one way a revision is written. Every change is revision n+1 appended conditionally (the store's commit
 * point and concurrency token at once), with its outbox event. Three ways to use it: a plain append (a
 * creation, a system job that simply loses a race), an append under the revision the caller read (a lost
 * race is a mismatch naming the current revision), and an optimistic update that reads, decides and appends,
 * re-reading and deciding again on every lost race, bounded and jittered. Core code speaks in revisions;
 * only the HTTP layer maps them to and from entity tags.
 */
export class RevisionWriter {
  readonly #deps: RevisionWriterDependencies;
  readonly #backoff: Backoff;

  constructor(deps: RevisionWriterDependencies) {
    this.#deps = deps;
    this.#backoff = deps.backoff ?? fullJitter(BACKOFF);
  }

  /**
   * The revision that follows `head` (the first one when there is none): made by `actor` now, keeping the
   * creator and creation time of a live head; a tombstone or nothing before it starts the record afresh.
   */
  next(namespace: Namespace, id: string, head: RecordRevision | undefined, actor: Actor, change: RevisionChange) {
    const now = this.#deps.clock.now().toISOString();
    const live = head?.status === 'active' ? head : undefined;
    const revision: RecordRevision = {
      id,
      namespace,
      revision: (head?.revision ?? 0) + 1,
      status: change.status ?? 'active',
      content: change.content,
      provenance: {
        createdBy: live?.provenance.createdBy ?? actor,
        revisedBy: actor,
        sourceEventIds: [...(change.sourceEventIds ?? live?.provenance.sourceEventIds ?? [])],
      },
      createdAt: live?.createdAt ?? now,
      updatedAt: now,
      expiresAt: change.expiresAt,
    };
    return revision;
  }

  /** A tombstone after `head`: no content, the same expiry, the record answering as absent from then on. */
  tombstone(head: RecordRevision, actor: Actor): RecordRevision {
    return this.next(head.namespace, head.id, head, actor, {
      status: 'deleted',
      content: null,
      expiresAt: head.expiresAt,
    });
  }

  /** Appends `revision` with its event; RevisionConflictError when that revision number exists already. */
  append(
    revision: RecordRevision,
    type: RecordEventType,
    options: AppendOptions & { readonly idempotencyKey?: string | undefined } = {},
  ): Promise<void> {
    return this.#deps.revisions.append(
      revision,
      recordEventOf(revision, type, this.#deps.ids.next(), options.idempotencyKey),
      {
        after: options.after,
      },
    );
  }

  /**
   * Appends a change computed from a revision the caller read (`revision` is that one plus one). Of two
   * writers that read the same revision exactly one commits; the other learns which revision is current
   * (RevisionMismatchError), or that the record is gone (NotFound). Losing to a delete names the tombstone's
   * revision, as records always have, unless `deletedAs: 'absent'` (beliefs answer as if never there).
   */
  async appendExpected(
    revision: RecordRevision,
    type: RecordEventType,
    options: { readonly deletedAs?: 'revision' | 'absent' } = {},
  ): Promise<void> {
    try {
      await this.append(revision, type);
    } catch (error) {
      if (!(error instanceof RevisionConflictError)) throw error;
      const current = await this.#deps.revisions.getHead(revision.namespace, revision.id);
      if (!current || (options.deletedAs === 'absent' && current.status !== 'active'))
        throw new NotFoundError({ cause: error });
      throw new RevisionMismatchError(current.id, current.revision, { cause: error });
    }
  }

  /**
   * Reads the head, lets `decide` compute the next revision (or nothing) from it, and appends; a lost race
   * reads again and decides again, with bounded, jittered back-off, until it commits or gives up with a
   * retryable `busy` error. A `guess` of the head (what this process wrote last) saves the first read: a
   * conflict on it, or a decision to write nothing on it, reads the store at once — an answer never rests
   * on a guess.
   */
  update<T>(
    namespace: Namespace,
    id: string,
    decide: (head: RecordRevision | undefined) => UpdateDecision<T>,
    options: {
      readonly guess?: RecordRevision | undefined;
      readonly after?: Promise<unknown> | undefined;
      readonly busy: string;
    },
  ): Promise<T> {
    return retrying(
      async (attempt) => {
        const guessed = attempt === 0 && options.guess !== undefined;
        const head = guessed ? options.guess : await this.#deps.revisions.getHead(namespace, id);
        const decision = decide(head);
        if ('keep' in decision) return guessed ? again('at-once') : done(decision.keep);
        try {
          await this.append(decision.write, decision.type, { after: options.after });
          return done(decision.result);
        } catch (error) {
          if (!(error instanceof RevisionConflictError)) throw error;
          // A conflict met on a guess is not contention, just news: read again at once.
          return again(guessed ? 'at-once' : 'after-backoff');
        }
      },
      {
        attempts: MAX_WRITE_ATTEMPTS,
        backoff: this.#backoff,
        exhausted: () => new ServiceUnavailableError(options.busy),
      },
    );
  }
}

/** Whether `head` is the revision the caller says its change was computed from. */
export const isExpectedRevision = (head: RecordRevision, expected: ExpectedRevisions): boolean =>
  expected.includes(head.revision);

/** The revisions a change says it was computed from; a change to an existing record must name some. */
export const requireExpectedRevisions = (expected: ExpectedRevisions | undefined): ExpectedRevisions => {
  if (expected === undefined) throw new ExpectedRevisionRequiredError();
  return expected;
};

/** A change computed from another revision than the latest is refused, naming the latest. */
export const requireExpectedRevision = (head: RecordRevision, expected: ExpectedRevisions): void => {
  if (!isExpectedRevision(head, expected)) throw new RevisionMismatchError(head.id, head.revision);
};
