import { createHash } from 'node:crypto';
import type { Scope } from '../../kernel/identity/scope.ts';
import {
  ExpectedRevisionRequiredError,
  IdempotencyKeyReusedError,
  RevisionConflictError,
  RevisionMismatchError,
} from '../../kernel/records/record.errors.ts';
import type { Page, PageRequest } from '../../kernel/records/record.schema.ts';
import type { IdempotencyRequest, RecordService, RecordView } from '../../kernel/records/record-service.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import {
  type CandidateContent,
  PROCEDURE_CANDIDATE,
  type PromoteInput,
  TRIALS_MAX,
  type TrialInput,
} from './candidate.schema.ts';
import { mergeWarnings } from './extraction.ts';
import { compareVersions, nextMinorVersion, type ProcedureContent } from './procedure.schema.ts';
import type { ProcedurePoolCache } from './procedure-pool-cache.ts';
import type { ProceduresSettings } from './procedures.config.ts';
import { InvalidTransitionError, ProcedureRetiredError, StaleCandidateError } from './procedures.errors.ts';
import { requireManager } from './project-roles.ts';
import { decidePromotion, type PromotionDecision } from './promotion.ts';

export type CandidateView = RecordView<CandidateContent>;
export type ProcedureView = RecordView<ProcedureContent>;

export interface CandidatesDependencies {
  readonly candidates: RecordService<CandidateContent>;
  readonly procedures: RecordService<ProcedureContent>;
  /** Told of every change promotion makes to the pool. */
  readonly pools: ProcedurePoolCache;
  readonly settings: () => ProceduresSettings;
  readonly clock: Clock;
}

export interface PromotionResult {
  readonly candidate: CandidateView;
  readonly decision?: PromotionDecision;
  /** The procedure revision made active (structure) or given the warnings. */
  readonly procedure?: ProcedureView;
}

/**
 * Candidates and their trials (reference 001 §4.4, §B.5–B.6). Trials are recorded by the manager; promotion
 * checks the gates of eq. 9 over every trial and makes the candidate active by compare-and-set on the head
 * revision it was built from (eq. 16): of two promotions against one head exactly one advances it, and a stale
 * one leaves it unchanged. Warnings attach on their own, onto the head as it is, without a structural change.
 */
export class CandidatesService {
  readonly #deps: CandidatesDependencies;

  constructor(deps: CandidatesDependencies) {
    this.#deps = deps;
  }

  /**
   * Candidates are the manager's: they carry what a task's blackboard held (its failures become warnings),
   * which only the task's own members may read.
   */
  list(scope: Scope, project: string, page: PageRequest): Promise<Page<CandidateView>> {
    scope.namespace(PROCEDURE_CANDIDATE, { project });
    requireManager(scope, project);
    return this.#deps.candidates.list(scope, { project }, page);
  }

  async get(scope: Scope, project: string, id: string): Promise<CandidateView> {
    scope.namespace(PROCEDURE_CANDIDATE, { project });
    requireManager(scope, project);
    return this.#deps.candidates.get(scope, { project }, id);
  }

  /** One reproduction trial; under an Idempotency-Key a retry records nothing twice. */
  async addTrial(
    scope: Scope,
    project: string,
    id: string,
    trial: TrialInput,
    idempotency?: IdempotencyRequest,
  ): Promise<{ readonly candidate: CandidateView; readonly replayed: boolean }> {
    // The key is kept as a digest: a record never holds (nor shows) what the caller sent as a key.
    const keyDigest =
      idempotency && createHash('sha256').update(`trial-key/${idempotency.key}`).digest('base64url').slice(0, 22);
    const known = (content: CandidateContent) => {
      const earlier = keyDigest && content.trials.find((entry) => entry.idempotencyKey === keyDigest);
      if (earlier && earlier.fingerprint !== idempotency?.fingerprint) throw new IdempotencyKeyReusedError();
      return earlier !== undefined;
    };
    const current = await this.get(scope, project, id);
    if (known(current.content as CandidateContent)) return { candidate: current, replayed: true };
    let replayed = false;
    const candidate = await this.#revise(scope, project, id, (content) => {
      replayed = known(content);
      if (replayed) return content;
      if (content.status !== 'candidate') throw new InvalidTransitionError(`The candidate is ${content.status}`);
      if (content.trials.length >= TRIALS_MAX)
        throw new InvalidTransitionError(`A candidate holds at most ${TRIALS_MAX} trials`);
      return {
        ...content,
        trials: [
          ...content.trials,
          {
            ...trial,
            recordedAt: this.#deps.clock.now().toISOString(),
            recordedBy: scope.principal,
            ...(idempotency && keyDigest && { idempotencyKey: keyDigest, fingerprint: idempotency.fingerprint }),
          },
        ],
      };
    });
    return { candidate, replayed };
  }

  async promote(scope: Scope, project: string, id: string, input: PromoteInput): Promise<PromotionResult> {
    const candidate = await this.get(scope, project, id);
    requireManager(scope, project);
    const content = candidate.content as CandidateContent;
    if (content.status !== 'candidate') throw new InvalidTransitionError(`The candidate is ${content.status}`);
    return this.#deps.pools.changing(
      scope,
      project,
      input.apply === 'warnings'
        ? this.#attachWarnings(scope, project, candidate)
        : this.#promoteStructure(scope, project, candidate),
      (result) => result.procedure,
    );
  }

  async #promoteStructure(scope: Scope, project: string, candidate: CandidateView): Promise<PromotionResult> {
    const content = candidate.content as CandidateContent;
    const settings = this.#deps.settings();
    const decision = decidePromotion(
      {
        causalConfidence: content.causalConfidence,
        safetyRisk: content.safetyRisk,
        steps: content.steps,
        prerequisites: content.prerequisites,
      },
      content.trials,
      {
        costWeight: settings.costWeight,
        maxSafetyRisk: settings.maxSafetyRisk,
        minCausalConfidence: settings.minCausalConfidence,
        minReproductions: settings.minReproductions,
      },
    );
    if (!decision.accept) return { candidate, decision };
    const change = { kind: 'promoted' as const, candidateId: candidate.id, summaryScore: decision.summaryScore };
    let procedure: ProcedureView;
    try {
      procedure = content.base
        ? await this.#deps.procedures.update(
            scope,
            { project },
            content.base.procedureId,
            [content.base.revision],
            (head) => {
              if (head.status === 'retired') throw new ProcedureRetiredError();
              const version =
                compareVersions(content.version, head.version) > 0 ? content.version : nextMinorVersion(head.version);
              return {
                metadata: head.metadata,
                steps: content.steps,
                prerequisites: content.prerequisites,
                warnings: content.warnings,
                version,
                status: 'active',
                ...(head.specializes && { specializes: head.specializes }),
                change,
              };
            },
          )
        : // A new procedure takes the candidate's id: a second promotion finds it made and changes nothing.
          (
            await this.#deps.procedures.put(scope, { project }, candidate.id, undefined, {
              metadata: content.metadata,
              steps: content.steps,
              prerequisites: content.prerequisites,
              warnings: content.warnings,
              version: content.version,
              status: 'active',
              change,
            })
          ).record;
    } catch (error) {
      if (
        error instanceof RevisionMismatchError ||
        error instanceof RevisionConflictError ||
        error instanceof ExpectedRevisionRequiredError
      )
        throw new StaleCandidateError();
      throw error;
    }
    const promoted = await this.#revise(scope, project, candidate.id, (current) => ({
      ...current,
      status: 'promoted',
      outcome: { procedureId: procedure.id, revision: procedure.revision },
    }));
    return { candidate: promoted, decision, procedure };
  }

  /** The candidate's warnings merged onto the base procedure's current head; no gate, no structural change. */
  async #attachWarnings(scope: Scope, project: string, candidate: CandidateView): Promise<PromotionResult> {
    const content = candidate.content as CandidateContent;
    if (!content.base)
      throw new InvalidTransitionError('A candidate for a new procedure has no procedure to attach warnings to');
    const base = content.base;
    const procedure = await this.#deps.procedures.reviseCurrent(scope, { project }, base.procedureId, (current) => {
      if (current?.status === 'retired') throw new ProcedureRetiredError();
      const head = current as ProcedureContent;
      return {
        ...head,
        warnings: mergeWarnings(head.warnings, content.warnings).slice(0, 50),
        change: { kind: 'warnings_attached', candidateId: candidate.id },
      };
    });
    const updated = await this.#revise(scope, project, candidate.id, (current) => ({
      ...current,
      warningsAttached: true,
    }));
    return { candidate: updated, procedure };
  }

  /** The candidate's current head changed by `change`, re-read on a lost race. */
  #revise(
    scope: Scope,
    project: string,
    id: string,
    change: (content: CandidateContent) => CandidateContent,
  ): Promise<CandidateView> {
    return this.#deps.candidates.reviseCurrent(scope, { project }, id, (current) =>
      change(current as CandidateContent),
    );
  }
}
