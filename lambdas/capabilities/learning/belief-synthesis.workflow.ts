import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { RecordKinds } from '../../kernel/namespaces/record-kind.ts';
import { namespaceFromStorageKey, systemActor } from '../../kernel/namespaces/system-namespaces.ts';
import type { HeadProjection } from '../../kernel/records/head-projection.port.ts';
import type { NamespaceDirectory } from '../../kernel/records/namespace-directory.port.ts';
import { RevisionConflictError } from '../../kernel/records/record.errors.ts';
import type { RecordRevision } from '../../kernel/records/record.schema.ts';
import type { RevisionWriter } from '../../kernel/records/revision-writer.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { CATCH_ALL, STANDARD_RETRY, type WorkflowPolicy } from '../../kernel/workflows/workflow-definition.ts';
import type { StepInput, WorkflowImplementation } from '../../kernel/workflows/workflow-step-executor.ts';
import { Belief } from './belief.schema.ts';
import { BELIEF_KINDS, beliefExpiresAt } from './belief-record.ts';
import type { LearningSettings } from './learning-settings.ts';
import { evaluateBelief } from './maturation-gate.ts';

const PAGE = 100;
const BELIEF_KIND_NAMES: ReadonlySet<string> = new Set(Object.values(BELIEF_KINDS).map((kind) => kind.name));

/**
 * Beliefs no event touches are evaluated again at the current instant, so that they decay and expire on time;
 * a belief whose evaluation changes gets one more revision, the others none.
 */
export const BELIEF_SYNTHESIS: WorkflowPolicy = {
  name: 'belief-synthesis',
  description:
    'Re-evaluates stored beliefs through the maturation gate so that unconfirmed ones decay to provisional and expire',
  schedule: 'rate(1 day)',
  steps: [
    { name: 'evaluate-beliefs', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'report', retry: STANDARD_RETRY, catch: CATCH_ALL },
  ],
  onFailure: 'record-failure',
};

export interface BeliefSynthesisDependencies {
  readonly heads: Pick<HeadProjection, 'listHeads'>;
  readonly directory: NamespaceDirectory;
  readonly clock: Clock;
  readonly writer: RevisionWriter;
  /** Every record kind of the deployment: namespaces are read back from the directory's storage keys. */
  readonly kinds: RecordKinds;
  /** The learning thresholds of an agent (undefined: of the principal at large), as `settingsForAgent` gives them. */
  readonly learning: (agent: string | undefined) => LearningSettings;
}

/** What one run of `evaluate-beliefs` did; every count is of beliefs (records), not of values. */
export interface BeliefSynthesisCounts {
  /** Beliefs read, parsed and evaluated. */
  evaluated: number;
  /** Revised from `mature` to `provisional`: the applied value lost its freshness. */
  decayed: number;
  /** Revised to `expired`: no value confirmed within `expireAfterDays`. */
  expired: number;
  /** Revisions appended (the decayed and expired ones included). */
  revised: number;
  /** Changed, but another writer appended that revision first (and evaluated the belief itself). */
  contended: number;
  /** Records whose content is not a belief of their namespace; left as they are. */
  unreadable: number;
}

type Outcome = 'unchanged' | 'decayed' | 'expired' | 'revised' | 'contended' | 'unreadable';

/** JSON with object keys sorted at every level: equal beliefs serialize alike whatever order their fields were built in. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_, field: unknown) =>
    field !== null && typeof field === 'object' && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field,
  );

/**
 * What a revision is worth writing for: statuses, what is applied and why. Confidences drift a little every
 * day while competing values age; reads evaluate them afresh anyway, so a drift alone is not written down.
 */
const standing = (belief: Belief) => ({
  status: belief.status,
  appliedValue: belief.appliedValue,
  basis: belief.basis,
  statusChangedAt: belief.statusChangedAt,
  superseded: belief.superseded,
  values: belief.values.map(({ value, status }) => [value, status]),
});

/**
 * Beliefs live where the record conventions put them (`belief-record.ts`): a principal's namespace of a belief
 * kind, narrowed to an agent or not. Session-narrowed namespaces never hold one.
 */
const holdsBeliefs = (namespace: Namespace): boolean =>
  BELIEF_KIND_NAMES.has(namespace.kind.name) &&
  namespace.owner.type === 'principal' &&
  namespace.owner.session === undefined;

/**
 * The belief synthesis's steps. The merge evaluates a belief whenever an event touches it; this workflow
 * evaluates the ones nobody touches, so that they still decay (`decayAfterDays` without confirmation) and
 * expire (`expireAfterDays`). A belief whose evaluation changes nothing gets no revision, so a run is
 * idempotent and a retried step repeats only what did not commit.
 */
export const beliefSynthesis = (deps: BeliefSynthesisDependencies): WorkflowImplementation => {
  const synthesize = async (head: RecordRevision): Promise<Outcome> => {
    const { namespace } = head;
    const agent = namespace.owner.type === 'principal' ? namespace.owner.agent : undefined;
    const parsed = Belief.safeParse(head.content);
    // A belief about another kind or agent than its namespace's would be judged by the wrong thresholds.
    if (!parsed.success || parsed.data.kind !== namespace.kind.name || parsed.data.agent !== agent) return 'unreadable';
    const stored = parsed.data;
    const settings = deps.learning(agent);
    // Read per belief: a merge that committed after the run began is never judged at an earlier instant.
    const now = deps.clock.now();
    const evaluated = evaluateBelief(stored, now, settings);
    if (canonicalJson(standing(evaluated)) === canonicalJson(standing(stored))) return 'unchanged';

    const next = deps.writer.next(namespace, head.id, head, systemActor(BELIEF_SYNTHESIS.name), {
      content: evaluated,
      expiresAt: beliefExpiresAt(now, settings),
    });
    try {
      await deps.writer.append(next, 'record.revised');
    } catch (error) {
      // A merge appended this revision first, and it evaluated the belief at its own instant.
      if (error instanceof RevisionConflictError) return 'contended';
      throw error;
    }
    if (evaluated.status === 'expired' && stored.status !== 'expired') return 'expired';
    if (evaluated.status === 'provisional' && stored.status === 'mature') return 'decayed';
    return 'revised';
  };

  const evaluateBeliefs = async (input: StepInput): Promise<BeliefSynthesisCounts> => {
    const counts: BeliefSynthesisCounts = {
      evaluated: 0,
      decayed: 0,
      expired: 0,
      revised: 0,
      contended: 0,
      unreadable: 0,
    };
    let cursor: string | undefined;
    do {
      const page = await deps.directory.list({ limit: PAGE, cursor, tenant: input.tenant ?? undefined });
      for (const entry of page.items) {
        const namespace = namespaceFromStorageKey(entry.key, deps.kinds);
        if (!namespace || !holdsBeliefs(namespace)) continue;
        let headCursor: string | undefined;
        do {
          const heads = await deps.heads.listHeads(namespace, { limit: PAGE, cursor: headCursor });
          for (const head of heads.items) {
            const outcome = await synthesize(head);
            if (outcome === 'unreadable') {
              counts.unreadable += 1;
              continue;
            }
            counts.evaluated += 1;
            if (outcome === 'contended') counts.contended += 1;
            if (outcome === 'decayed' || outcome === 'expired' || outcome === 'revised') counts.revised += 1;
            if (outcome === 'decayed') counts.decayed += 1;
            if (outcome === 'expired') counts.expired += 1;
          }
          headCursor = heads.nextCursor;
        } while (headCursor);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return counts;
  };

  return {
    policy: BELIEF_SYNTHESIS,
    steps: {
      'evaluate-beliefs': async (input) => {
        const counts = await evaluateBeliefs(input);
        return { ...input, counts: { ...input.counts, ...counts } };
      },
      report: async (input) => input,
      'record-failure': async (input) => input,
    },
  };
};
