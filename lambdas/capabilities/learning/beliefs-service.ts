import { NotFoundError, ValidationFailedError } from '../../kernel/errors/domain-error.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import { SensitiveContentRefusedError } from '../../kernel/protection/protection.errors.ts';
import type { SensitiveContentReason } from '../../kernel/protection/protection.schema.ts';
import { screenRule } from '../../kernel/protection/rule-screen.ts';
import type { HeadProjection } from '../../kernel/records/head-projection.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import type { ExpectedRevisions, Page, PageRequest, RecordRevision } from '../../kernel/records/record.schema.ts';
import type { RevisionStore } from '../../kernel/records/revision-store.port.ts';
import {
  type RevisionWriter,
  requireExpectedRevision,
  requireExpectedRevisions,
} from '../../kernel/records/revision-writer.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import type { IdGenerator } from '../../kernel/time/ids.ts';
import {
  Belief,
  type BeliefStatus,
  type CandidateRule,
  RuleKind,
  type RuleObservation,
  type RuleValue,
} from './belief.schema.ts';
import { BELIEF_KINDS, beliefExpiresAt, beliefIdOf, parseBeliefId, sourceEventIdsOf } from './belief-record.ts';
import { type BeliefView, beliefViewOf, currentBeliefView } from './belief-view.ts';
import { KeyedQueue } from './keyed-queue.ts';
import type { LearningSettings } from './learning-settings.ts';
import { assessBelief, evaluateBelief, type ValueAssessment } from './maturation-gate.ts';
import { mergeObservation } from './merge-rule.ts';

const RESET_PAGE = 100;
/** History pages read in a row to get past the revisions before a forgetting. */
const MAX_HISTORY_REFILLS = 20;
const RULE_KINDS = RuleKind.options;

export type { BeliefView } from './belief-view.ts';

/** A belief and why it stands where it does: what `GET /v1/beliefs/{id}` shows. */
export interface InspectedBelief extends BeliefView {
  readonly assessments: readonly ValueAssessment[];
}

/** A candidate that did not reach long-term memory, and why, without the content that stopped it. */
export interface WithheldCandidate {
  readonly key: string;
  readonly kind: RuleKind;
  readonly reasons: readonly SensitiveContentReason[];
}

export interface LearnResult {
  readonly touched: readonly BeliefView[];
  readonly withheld: readonly WithheldCandidate[];
}

export interface BeliefFilter {
  readonly kind?: RuleKind | undefined;
  readonly agent?: string | undefined;
  readonly status?: BeliefStatus | undefined;
}

/** How a principal corrects a belief: a value they state (applied at once), or one they take back. */
export interface BeliefCorrection {
  readonly value?: RuleValue | undefined;
  readonly retract?: RuleValue | undefined;
}

export interface BeliefsServiceDependencies {
  /** Reads; every write goes through `writer`. */
  readonly revisions: Pick<RevisionStore, 'getHead' | 'listRevisions'>;
  readonly heads: Pick<HeadProjection, 'listHeads'>;
  readonly writer: RevisionWriter;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The learning thresholds in force for an agent (its overrides over the base), read at the time of use. */
  readonly learning: (agent: string | undefined) => LearningSettings;
}

/** Session ids the API refuses, so that the service's own cannot collide with a client's. */
export const RESERVED_SESSION_PREFIX = 'memory-hub-';
/** A correction comes from no session; its observations are filed under this one. */
const CORRECTION_SESSION = `${RESERVED_SESSION_PREFIX}correction`;

/**
 * Learned memory per principal: MERGE and SYNTHESIS on every observation (`learn`), and the principal's
 * inspect, correct, forget and reset. Every change is one more revision of the belief's record, appended
 * conditionally on the revision it was computed from: of two concurrent writers exactly one commits, the
 * other re-reads and merges again, so no observation is lost however many arrive at once. Within one process
 * the merges of one belief queue up rather than race (see `KeyedQueue`); the bounded, jittered retries are
 * for writers in other processes.
 */
export interface LearnOptions {
  /**
   * The commit of the event the observation names, when it is still being written: the merges are computed
   * and encrypted meanwhile, and written only once it has committed (nothing cites an event never stored).
   */
  readonly eventCommitted?: Promise<void> | undefined;
}

export class BeliefsService {
  readonly #deps: BeliefsServiceDependencies;
  readonly #queue = new KeyedQueue();
  readonly #written = new RecentlyWritten();

  constructor(deps: BeliefsServiceDependencies) {
    this.#deps = deps;
  }

  /**
   * Folds the candidates drafted from one event into their beliefs, screening each first: a candidate whose key
   * or value holds a personal identifier or a secret is withheld (reported by reason, never by value) and
   * touches nothing. Candidates about the same belief (a correction's "wanted" and "did") make one revision;
   * distinct beliefs merge side by side. A belief the principal forgot after the observation was made (a
   * replayed request) learns nothing from it.
   */
  async learn(
    scope: Scope,
    candidates: readonly CandidateRule[],
    observation: RuleObservation,
    options: LearnOptions = {},
  ): Promise<LearnResult> {
    const withheld: WithheldCandidate[] = [];
    const byBelief = new Map<string, { namespace: Namespace; id: string; candidates: CandidateRule[] }>();
    for (const candidate of candidates) {
      const screened = screenRule(candidate);
      if (screened.verdict === 'refused') {
        withheld.push({ key: candidate.key, kind: candidate.kind, reasons: screened.reasons });
        continue;
      }
      const namespace = scope.namespace(BELIEF_KINDS[candidate.kind], { agent: candidate.agent });
      const id = beliefIdOf(candidate);
      const queueKey = `${namespace.key}#${id}`;
      const group = byBelief.get(queueKey) ?? { namespace, id, candidates: [] };
      group.candidates.push(candidate);
      byBelief.set(queueKey, group);
    }
    const touched = await Promise.all(
      [...byBelief].map(([queueKey, group]) =>
        this.#queue.run(queueKey, () => this.#mergeRetrying(scope, group, observation, options)),
      ),
    );
    return { touched: touched.filter((view): view is BeliefView => view !== undefined), withheld };
  }

  async list(scope: Scope, filter: BeliefFilter, page: PageRequest): Promise<Page<BeliefView>> {
    const kinds = filter.kind === undefined ? RULE_KINDS : [filter.kind];
    // One cursor across kinds: which kind the listing is in, and the store's cursor inside it.
    const position = page.cursor === undefined ? undefined : decodeListCursor(page.cursor, kinds.length);
    const items: BeliefView[] = [];
    let kindIndex = position?.kindIndex ?? 0;
    let cursor = position?.cursor;
    while (kindIndex < kinds.length && items.length < page.limit) {
      const kind = kinds[kindIndex] as RuleKind;
      const namespace = scope.namespace(BELIEF_KINDS[kind], { agent: filter.agent });
      const heads = await this.#deps.heads.listHeads(namespace, { limit: page.limit - items.length, cursor });
      for (const head of heads.items) {
        const view = this.#view(head, filter.agent);
        if (view && (filter.status === undefined || view.belief.status === filter.status)) items.push(view);
      }
      cursor = heads.nextCursor;
      if (cursor === undefined) kindIndex += 1;
    }
    const more = kindIndex < kinds.length;
    return { items, nextCursor: more ? encodeListCursor(kindIndex, cursor) : undefined };
  }

  async inspect(scope: Scope, id: string): Promise<InspectedBelief> {
    const { head, agent } = await this.#liveHead(scope, id);
    const view = this.#view(head, agent);
    if (!view) throw new NotFoundError();
    return { ...view, assessments: assessBelief(view.belief, this.#deps.clock.now(), this.#deps.learning(agent)) };
  }

  /**
   * The revisions of the belief as it stands, oldest first. A belief the principal forgot and that was learned
   * again shows only what came after the forgetting: what was forgotten stays forgotten.
   */
  async history(scope: Scope, id: string, page: PageRequest): Promise<Page<BeliefView>> {
    const { head, namespace } = await this.#liveHead(scope, id);
    const since = Belief.parse(head.content).forgotten?.revision ?? 0;
    const items: BeliefView[] = [];
    let cursor = page.cursor;
    // Pages wholly before the forgetting are skipped rather than answered empty.
    for (let refill = 0; refill < MAX_HISTORY_REFILLS; refill++) {
      const revisions = await this.#deps.revisions.listRevisions(namespace, id, { limit: page.limit, cursor });
      for (const revision of revisions.items)
        if (revision.revision > since && revision.status === 'active')
          items.push(this.#viewOf(revision, Belief.parse(revision.content)));
      cursor = revisions.nextCursor;
      if (items.length > 0 || cursor === undefined) break;
    }
    return { items, nextCursor: cursor };
  }

  /**
   * The principal's own word on a belief, under If-Match: a stated value is a declarative confirmation and is
   * applied at once (for a single-valued key it replaces whatever was applied); a retracted value is a
   * declarative refutation and stops being applied.
   */
  async correct(
    scope: Scope,
    id: string,
    expected: ExpectedRevisions | undefined,
    correction: BeliefCorrection,
  ): Promise<BeliefView> {
    const named = requireExpectedRevisions(expected);
    if (correction.value === undefined && correction.retract === undefined)
      throw new ValidationFailedError('Give the value you want believed, or the one to take back', [
        { path: 'value', message: 'give value, retract or both' },
      ]);
    const { head, namespace, agent } = await this.#liveHead(scope, id);
    requireExpectedRevision(head, named);
    const current = Belief.parse(head.content);
    const settings = this.#deps.learning(agent);
    const now = this.#deps.clock.now();
    const rule = { key: current.key, kind: current.kind, cardinality: current.cardinality, agent: current.agent };
    if (correction.retract !== undefined && !current.values.some(({ value }) => value === correction.retract))
      throw new ValidationFailedError('The belief holds no such value to take back', [
        { path: 'retract', message: 'not one of the values of this belief' },
      ]);
    const corrections: CandidateRule[] = [
      ...(correction.retract === undefined
        ? []
        : [{ ...rule, value: correction.retract, basis: 'declarative', polarity: 'refute' } as const]),
      ...(correction.value === undefined
        ? []
        : [{ ...rule, value: correction.value, basis: 'declarative', polarity: 'confirm' } as const]),
    ];
    for (const candidate of corrections) {
      const screened = screenRule(candidate);
      if (screened.verdict === 'refused') throw new SensitiveContentRefusedError(screened.reasons);
    }
    let next = current;
    for (const candidate of corrections) {
      // A retraction and a statement in one correction are two observations: the statement is the later one.
      const at = new Date(now.getTime() + (candidate.polarity === 'confirm' && corrections.length > 1 ? 1 : 0));
      next = mergeObservation(
        next,
        candidate,
        { eventId: this.#deps.ids.next(), session: CORRECTION_SESSION, at: at.toISOString() },
        settings,
      );
    }
    const evaluated = evaluateBelief(next, now, settings);
    const revision = this.#revisionOf(scope, namespace, id, head, evaluated, settings);
    await this.#deps.writer.appendExpected(revision, 'record.revised', { deletedAs: 'absent' });
    return this.#viewOf(revision, evaluated);
  }

  /** Forgets a belief (the revision read): a tombstone revision; what is learned afterwards starts from nothing. */
  async forget(scope: Scope, id: string, expected: ExpectedRevisions | undefined): Promise<void> {
    const named = requireExpectedRevisions(expected);
    const { head } = await this.#liveHead(scope, id);
    requireExpectedRevision(head, named);
    await this.#deps.writer.appendExpected(this.#deps.writer.tombstone(head, scope.actor), 'record.deleted', {
      deletedAs: 'absent',
    });
  }

  /**
   * Forgets every belief of `kind` about the principal at large, or, given an agent, every one of that
   * agent's. Each is a tombstone revision of its own; a belief revised meanwhile is read again and forgotten
   * all the same. Returns how many were forgotten.
   */
  async reset(scope: Scope, target: { kind: RuleKind; agent?: string | undefined }): Promise<number> {
    const namespace = scope.namespace(BELIEF_KINDS[target.kind], { agent: target.agent });
    let forgotten = 0;
    let cursor: string | undefined;
    do {
      const heads = await this.#deps.heads.listHeads(namespace, { limit: RESET_PAGE, cursor });
      const outcomes = await Promise.all(heads.items.map((head) => this.#forgetRetrying(scope, namespace, head)));
      forgotten += outcomes.filter(Boolean).length;
      cursor = heads.nextCursor;
    } while (cursor);
    return forgotten;
  }

  /** Tombstones a listed belief, re-reading it when it was revised meanwhile. False when it is already gone. */
  #forgetRetrying(scope: Scope, namespace: Namespace, listed: RecordRevision): Promise<boolean> {
    return this.#deps.writer.update<boolean>(
      namespace,
      listed.id,
      (head) =>
        head?.status === 'active'
          ? { write: this.#deps.writer.tombstone(head, scope.actor), type: 'record.deleted', result: true }
          : { keep: false },
      // Reset is idempotent: a retry forgets what is left.
      { guess: listed, busy: 'Learned memory is too busy to reset now; retry it' },
    );
  }

  async #mergeRetrying(
    scope: Scope,
    target: { namespace: Namespace; id: string; candidates: readonly CandidateRule[] },
    observation: RuleObservation,
    options: LearnOptions,
  ): Promise<BeliefView | undefined> {
    const { namespace, id } = target;
    const agent = target.candidates[0]?.agent;
    const settings = this.#deps.learning(agent);
    const cacheKey = `${namespace.key}#${id}`;
    // What this process wrote last saves a read; if someone wrote since, the append conflicts and the writer
    // reads the store. Forgotten until this merge commits again.
    const cached = this.#written.get(cacheKey, this.#deps.clock.now());
    this.#written.delete(cacheKey);
    const outcome = await this.#deps.writer.update<MergeOutcome>(
      namespace,
      id,
      (head) => {
        const live = head?.status === 'active' ? head : undefined;
        const current = cached && head === cached.revision ? cached.belief : live && Belief.parse(live.content);
        const forgotten = current ? current.forgotten : head && { revision: head.revision, at: head.updatedAt };
        const predatesForgetting = forgotten !== undefined && Date.parse(observation.at) < Date.parse(forgotten.at);
        // The first candidate to teach a key sets its cardinality; later ones (a correction, feedback) conform.
        const merged = predatesForgetting
          ? current
          : target.candidates.reduce<Belief | undefined>(
              (belief, candidate) =>
                mergeObservation(
                  belief,
                  current && candidate.cardinality !== current.cardinality
                    ? { ...candidate, cardinality: current.cardinality }
                    : candidate,
                  observation,
                  settings,
                ),
              current,
            );
        const now = this.#deps.clock.now();
        // Nothing to write: the event is already folded in (a retried request), or it was made before the
        // principal forgot the belief.
        if (merged === current)
          return { keep: { view: live && current && this.#viewOf(live, evaluateBelief(current, now, settings)) } };
        const evaluated = evaluateBelief(
          current === undefined && forgotten !== undefined ? { ...(merged as Belief), forgotten } : (merged as Belief),
          now,
          settings,
        );
        const revision = this.#revisionOf(scope, namespace, id, head, evaluated, settings);
        return {
          write: revision,
          type: live ? 'record.revised' : 'record.created',
          result: { view: this.#viewOf(revision, evaluated), written: { revision, belief: evaluated } },
        };
      },
      {
        guess: cached?.revision,
        after: options.eventCommitted,
        busy: 'Learned memory is too busy to take this observation now; retry it',
      },
    );
    if (outcome.written) this.#written.set(cacheKey, outcome.written, this.#deps.clock.now());
    return outcome.view;
  }

  #revisionOf(
    scope: Scope,
    namespace: Namespace,
    id: string,
    head: RecordRevision | undefined,
    belief: Belief,
    settings: LearningSettings,
  ): RecordRevision {
    return this.#deps.writer.next(namespace, id, head, scope.actor, {
      content: Belief.parse(belief),
      expiresAt: beliefExpiresAt(this.#deps.clock.now(), settings),
      sourceEventIds: sourceEventIdsOf(belief),
    });
  }

  /** The namespace a belief id names, inside the caller's own space only: anyone else's id is simply absent. */
  async #liveHead(scope: Scope, id: string) {
    const address = parseBeliefId(id);
    if (!address) throw new NotFoundError();
    const namespace = scope.namespace(BELIEF_KINDS[address.kind], { agent: address.agent });
    const head = await this.#deps.revisions.getHead(namespace, id);
    if (head?.status !== 'active') throw new NotFoundError();
    return { head, namespace, agent: address.agent };
  }

  #view(revision: RecordRevision, agent: string | undefined): BeliefView | undefined {
    return currentBeliefView(revision, this.#deps.clock.now(), this.#deps.learning(agent));
  }

  #viewOf(revision: RecordRevision, belief: Belief): BeliefView {
    return beliefViewOf(revision, belief);
  }
}

/**
 * How long this process takes the belief revision it wrote last for the head; see `#mergeRetrying`. The
 * conditional append makes any age safe (a stale guess costs one conflict and a read); the bound only keeps
 * a record that expired and was purged meanwhile from being continued.
 */
const WRITTEN_TTL_MS = 15 * 60_000;
const WRITTEN_CAPACITY = 10_000;

interface WrittenBelief {
  readonly revision: RecordRevision;
  readonly belief: Belief;
}

/** What one merge came to: the belief as it stands, and what was written for it, if anything. */
interface MergeOutcome {
  readonly view: BeliefView | undefined;
  readonly written?: WrittenBelief;
}

/** The last revision this process wrote per belief, for a while: a hint, never a source of truth. */
class RecentlyWritten {
  readonly #entries = new Map<string, WrittenBelief & { readonly at: number }>();

  get(key: string, now: Date): WrittenBelief | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || now.getTime() - entry.at > WRITTEN_TTL_MS) return undefined;
    return entry;
  }

  set(key: string, written: WrittenBelief, now: Date): void {
    if (this.#entries.size >= WRITTEN_CAPACITY) this.#entries.clear();
    this.#entries.set(key, { ...written, at: now.getTime() });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

const encodeListCursor = (kindIndex: number, cursor: string | undefined): string =>
  encodeCursor(JSON.stringify([kindIndex, cursor ?? null]));

const decodeListCursor = (cursor: string, kinds: number): { kindIndex: number; cursor: string | undefined } => {
  const [kindIndex, inner] = JSON.parse(
    decodeCursor(cursor, (position) => {
      try {
        const parsed: unknown = JSON.parse(position);
        return (
          Array.isArray(parsed) &&
          parsed.length === 2 &&
          Number.isInteger(parsed[0]) &&
          parsed[0] >= 0 &&
          parsed[0] < kinds &&
          (parsed[1] === null || typeof parsed[1] === 'string')
        );
      } catch {
        return false;
      }
    }),
  ) as [number, string | null];
  return { kindIndex, cursor: inner ?? undefined };
};
