import type { RecordRevision } from '../../kernel/records/record.schema.ts';
import { Belief } from './belief.schema.ts';
import type { LearningSettings } from './learning-settings.ts';
import { evaluateBelief } from './maturation-gate.ts';

/** What a caller sees of one belief: the belief as evaluated now, and the record revision it is stored in. */
export interface BeliefView {
  readonly id: string;
  readonly revision: number;
  readonly belief: Belief;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A revision with its belief as given: one just written (evaluated already), or as stored (history). */
export const beliefViewOf = (revision: RecordRevision, belief: Belief): BeliefView => ({
  id: revision.id,
  revision: revision.revision,
  belief,
  createdAt: revision.createdAt,
  updatedAt: revision.updatedAt,
});

/**
 * A stored revision as the caller sees it now: evaluated at the current time with the agent's settings, so decay
 * shows even before the periodic synthesis writes it down. Undefined for a revision that is not live.
 */
export const currentBeliefView = (
  revision: RecordRevision,
  now: Date,
  settings: LearningSettings,
): BeliefView | undefined =>
  revision.status === 'active'
    ? beliefViewOf(revision, evaluateBelief(Belief.parse(revision.content), now, settings))
    : undefined;
