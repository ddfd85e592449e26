import { NotFoundError, ValidationFailedError } from '../../kernel/errors/domain-error.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import { detectInstructionInjectionInValue } from '../../kernel/protection/instruction-injection.ts';
import type { ExpectedRevisions, Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type {
  CreateResult,
  IdempotencyRequest,
  RecordService,
  RecordView,
} from '../../kernel/records/record-service.ts';
import {
  type AdaptiveWeights,
  adaptiveWeights,
  feedbackStep,
  NO_BIAS,
  type RetrievalLogits,
  type RetrievalSignal,
} from './adaptive-weights.ts';
import {
  type CreateProcedureInput,
  compareVersions,
  nextMinorVersion,
  PROCEDURE,
  type ProcedureContent,
  type RefineProcedureInput,
} from './procedure.schema.ts';
import type { ProcedurePoolCache } from './procedure-pool-cache.ts';
import { type RankedProcedure, rankProcedures } from './procedure-ranking.ts';
import type { ProceduresSettings } from './procedures.config.ts';
import { ProcedureRetiredError } from './procedures.errors.ts';
import { requireManager } from './project-roles.ts';
import { RETRIEVAL_BIAS_ID, type RetrievalBias } from './retrieval-bias.schema.ts';

export type ProcedureView = RecordView<ProcedureContent>;

export interface ProcedureRetrieval {
  readonly weights: AdaptiveWeights;
  /** |C(q, F_q)|: the active procedures the facts allow. */
  readonly candidates: number;
  readonly hits: readonly (RankedProcedure & {
    readonly procedure: ProcedureView;
    /** `instruction-like`: text in it reads as an instruction to the agent; shown, never to be followed. */
    readonly flags?: readonly string[];
  })[];
}

export interface ProceduresDependencies {
  readonly procedures: RecordService<ProcedureContent>;
  readonly biases: RecordService<RetrievalBias>;
  readonly pools: ProcedurePoolCache;
  readonly settings: () => ProceduresSettings;
}

/**
 * A project's procedure pool (reference 001 §3): versioned procedures whose head is the active revision, refined,
 * specialised and retired by new revisions (the old ones stay in history), and retrieved by eq. 3 with the
 * project's adaptive weights.
 */
export class ProceduresService {
  readonly #deps: ProceduresDependencies;

  constructor(deps: ProceduresDependencies) {
    this.#deps = deps;
  }

  /**
   * The pool is the manager's to curate: creating, refining, specialising and retiring an active procedure is
   * theirs (agents propose through completed tasks and candidates, which become active only by promotion).
   */
  #requireCurator(scope: Scope, project: string): void {
    scope.namespace(PROCEDURE, { project });
    requireManager(scope, project);
  }

  async create(
    scope: Scope,
    project: string,
    input: CreateProcedureInput,
    idempotency?: IdempotencyRequest,
  ): Promise<CreateResult<ProcedureContent>> {
    this.#requireCurator(scope, project);
    return this.#deps.pools.changing(
      scope,
      project,
      this.#deps.procedures.create(
        scope,
        { project },
        { ...input, status: 'active', change: { kind: 'created' } },
        idempotency,
      ),
      (created) => created.record,
    );
  }

  get(scope: Scope, project: string, id: string): Promise<ProcedureView> {
    return this.#deps.procedures.get(scope, { project }, id);
  }

  list(scope: Scope, project: string, page: PageRequest): Promise<Page<ProcedureView>> {
    return this.#deps.procedures.list(scope, { project }, page);
  }

  history(scope: Scope, project: string, id: string, page: PageRequest): Promise<Page<ProcedureView>> {
    return this.#deps.procedures.history(scope, { project }, id, page);
  }

  /** A new active revision with the given structure; its version must move forward (the next minor by default). */
  async refine(
    scope: Scope,
    project: string,
    id: string,
    expected: ExpectedRevisions | undefined,
    input: RefineProcedureInput,
  ): Promise<ProcedureView> {
    this.#requireCurator(scope, project);
    const refined = this.#deps.procedures.update(scope, { project }, id, expected, (current) => {
      if (current.status === 'retired') throw new ProcedureRetiredError();
      const version = input.version ?? nextMinorVersion(current.version);
      if (compareVersions(version, current.version) <= 0)
        throw new ValidationFailedError('The version must move forward', [
          { path: 'version', message: 'must be greater than the current version' },
        ]);
      return {
        ...input,
        version,
        status: 'active',
        ...(current.specializes && { specializes: current.specializes }),
        change: { kind: 'refined' },
      };
    });
    return this.#deps.pools.changing(scope, project, refined, (view) => view);
  }

  /** A context-specific variant: a procedure of its own, linked to the parent revision it was derived from. */
  async specialize(
    scope: Scope,
    project: string,
    id: string,
    input: CreateProcedureInput,
    idempotency?: IdempotencyRequest,
  ): Promise<CreateResult<ProcedureContent>> {
    this.#requireCurator(scope, project);
    const parent = await this.get(scope, project, id);
    if (parent.content?.status !== 'active') throw new ProcedureRetiredError();
    return this.#deps.pools.changing(
      scope,
      project,
      this.#deps.procedures.create(
        scope,
        { project },
        {
          ...input,
          status: 'active',
          specializes: { procedureId: parent.id, revision: parent.revision },
          change: { kind: 'specialized' },
        },
        idempotency,
      ),
      (created) => created.record,
    );
  }

  async retire(
    scope: Scope,
    project: string,
    id: string,
    expected: ExpectedRevisions | undefined,
  ): Promise<ProcedureView> {
    this.#requireCurator(scope, project);
    return this.#deps.pools.changing(
      scope,
      project,
      this.#deps.procedures.update(scope, { project }, id, expected, (current) => {
        if (current.status === 'retired') throw new ProcedureRetiredError();
        return { ...current, status: 'retired', change: { kind: 'retired' } };
      }),
      (view) => view,
    );
  }

  /**
   * Eq. 3 over the project's active procedures, with the project's learned biases unless adaptation is off. The
   * pool is cached (ProcedurePoolCache); every hit is re-read from its head before it is shown, and a hit whose
   * head moved or left the pool is patched into it from that head and the ranking runs once more.
   */
  async retrieve(
    scope: Scope,
    project: string,
    request: {
      readonly query: string;
      readonly facts: readonly string[];
      readonly k?: number;
      readonly adaptive?: boolean;
    },
  ): Promise<ProcedureRetrieval> {
    // Membership first: the cached pool is the project's, and must not answer anyone outside it.
    scope.namespace(PROCEDURE, { project });
    const settings = this.#deps.settings();
    const adaptive = request.adaptive ?? settings.adaptiveRetrieval;
    const bias = this.#bias(scope, project);
    bias.catch(() => undefined);
    const readers = {
      list: () => this.#listActive(scope, project),
      head: (id: string) => this.#currentHead(scope, project, id),
    };
    let pool = await this.#deps.pools.pool(scope, project, readers);
    const weights = adaptiveWeights(request.query, { adaptive, bias: await bias });
    for (let round = 1; ; round += 1) {
      const { candidates, ranked } = rankProcedures(
        request.query,
        request.facts,
        pool.features,
        weights,
        request.k ?? settings.retrievalK,
      );
      const heads = await Promise.all(ranked.map((hit) => this.#currentHead(scope, project, hit.id)));
      const current = ranked.flatMap((hit, index) => {
        const head = heads[index];
        if (head === undefined || head.revision !== hit.revision) return [];
        const injection = detectInstructionInjectionInValue(head.content);
        return [
          { ...hit, procedure: head, ...(injection.verdict === 'quarantine' && { flags: ['instruction-like'] }) },
        ];
      });
      if (current.length === ranked.length || round === 2) return { weights, candidates, hits: current };
      pool =
        this.#deps.pools.patch(
          scope,
          project,
          ranked.flatMap((hit, index) => {
            const head = heads[index];
            return head?.revision === hit.revision ? [] : [{ id: hit.id, head }];
          }),
        ) ?? pool;
    }
  }

  /**
   * Feedback on a retrieval: which signal served the task. One cross-entropy step on the project's biases,
   * written by compare-and-set on the revision read (re-read and re-stepped when another feedback won).
   */
  async feedback(
    scope: Scope,
    project: string,
    request: { readonly query: string; readonly served: RetrievalSignal },
  ): Promise<{ readonly before: AdaptiveWeights; readonly after: AdaptiveWeights; readonly bias: RetrievalLogits }> {
    const rate = this.#deps.settings().feedbackLearningRate;
    let before = adaptiveWeights(request.query, { bias: NO_BIAS });
    const updated = await this.#deps.biases.reviseCurrent(
      scope,
      { project },
      RETRIEVAL_BIAS_ID,
      (current) => {
        const logits = current?.logits ?? NO_BIAS;
        before = adaptiveWeights(request.query, { bias: logits });
        return { logits: feedbackStep(logits, before, request.served, rate), steps: (current?.steps ?? 0) + 1 };
      },
      { createIfAbsent: true },
    );
    const bias = (updated.content as RetrievalBias).logits;
    return { before, after: adaptiveWeights(request.query, { bias }), bias };
  }

  /** The project's learned biases; none before its first feedback. */
  async #bias(scope: Scope, project: string): Promise<RetrievalLogits> {
    try {
      return (await this.#deps.biases.get(scope, { project }, RETRIEVAL_BIAS_ID)).content?.logits ?? NO_BIAS;
    } catch (error) {
      if (error instanceof NotFoundError) return NO_BIAS;
      throw error;
    }
  }

  /** The active head of a procedure, or undefined when it is retired, deleted or gone. */
  async #currentHead(scope: Scope, project: string, id: string): Promise<ProcedureView | undefined> {
    try {
      const head = await this.get(scope, project, id);
      return head.content?.status === 'active' ? head : undefined;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async #listActive(scope: Scope, project: string): Promise<ProcedureView[]> {
    const heads = await this.#deps.procedures.listAll(scope, { project });
    return heads.filter((view) => view.status === 'active' && view.content?.status === 'active');
  }
}
