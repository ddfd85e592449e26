import type { RecordRevision } from '../../kernel/records/record.schema.ts';
import type { SearchFields, SearchProjection } from '../../kernel/search/search-projection.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { Belief } from './belief.schema.ts';
import { BELIEF_KINDS } from './belief-record.ts';
import { currentBeliefView } from './belief-view.ts';
import { toBeliefResponse } from './http/learning.views.ts';
import type { LearningSettings } from './learning-settings.ts';

/** The edge type of a belief's rule key: beliefs about the same key, in any space, are about the same subject. */
export const RULE_EDGE = 'rule';

const valueText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * What search reads of a belief: its rule key in words (`response.language` → "response language") and every
 * value it holds, its status (`provisional`, `mature`, `expired`, and `applied` when a value is applied) for the
 * status filter, and its key as a `rule` edge.
 */
export const beliefSearchFields = (belief: Belief): SearchFields => {
  const { key, values, status, appliedValue } = belief;
  return {
    text: [key.replace(/[._:-]+/g, ' '), ...values.map((entry) => valueText(entry.value))].join('\n'),
    states: appliedValue === undefined ? [status] : [status, 'applied'],
    edges: { [RULE_EDGE]: [key] },
  };
};

/**
 * How search indexes and shows beliefs of every rule kind: a hit shows as `GET /v1/beliefs` lists it, evaluated
 * now with its agent's settings.
 */
export const beliefSearchProjections = (deps: {
  readonly clock: Clock;
  readonly learning: (agent: string | undefined) => LearningSettings;
}): SearchProjection[] =>
  Object.values(BELIEF_KINDS).map((kind) => {
    // As its owner sees it now: the status a filter matches is the status the hit shows, decay included.
    const viewNow = (revision: RecordRevision) => {
      if (!Belief.safeParse(revision.content).success) return undefined;
      const { owner } = revision.namespace;
      const agent = owner.type === 'principal' ? owner.agent : undefined;
      return currentBeliefView(revision, deps.clock.now(), deps.learning(agent));
    };
    return {
      kind,
      statesChangeOverTime: true,
      fields: (revision: RecordRevision) => {
        const view = viewNow(revision);
        return view && beliefSearchFields(view.belief);
      },
      present: (revision: RecordRevision) => {
        const view = viewNow(revision);
        return view && toBeliefResponse(view);
      },
    };
  });
