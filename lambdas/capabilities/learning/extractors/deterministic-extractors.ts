import { CandidateRule, valueIdentity } from '../belief.schema.ts';
import type { SessionEventInput } from '../session-event.schema.ts';
import type { CandidateExtractor } from './candidate-extractor.port.ts';
import { correctionExtractor } from './correction-extractor.ts';
import { feedbackExtractor } from './feedback-extractor.ts';
import { signalExtractor } from './signal-extractor.ts';
import { statementExtractor } from './statement-extractor.ts';

/*
 * The DRAFT step of the append request: every deterministic extractor, run in this order. Two event types
 * have none, on purpose:
 * - `outcome`: a task's result says how a procedure went, not what the principal prefers; outcomes feed
 *   procedural memory, not beliefs.
 * - `message`: a turn of conversation has no structure a pattern can trust; reading it is the job of the
 *   asynchronous, model-based strategies, which run on the stored event after the append.
 */
export const DETERMINISTIC_EXTRACTORS: readonly CandidateExtractor[] = Object.freeze([
  signalExtractor,
  statementExtractor,
  correctionExtractor,
  feedbackExtractor,
]);

/**
 * A candidate takes the event's agent when its extractor named none. A profile fact is about the principal
 * whichever agent heard it, so it never carries one.
 */
const attributed = (candidate: CandidateRule, event: SessionEventInput): CandidateRule => {
  const { agent, ...rule } = candidate;
  const attributedAgent = rule.kind === 'profile' ? undefined : (agent ?? event.agent);
  return attributedAgent === undefined ? rule : { ...rule, agent: attributedAgent };
};

/** Two candidates that agree on every field fold the same way; the merge needs only one. */
const identityOf = (candidate: CandidateRule): string =>
  JSON.stringify([
    candidate.key,
    candidate.kind,
    candidate.agent ?? null,
    valueIdentity(candidate.value),
    candidate.polarity,
    candidate.basis,
    candidate.cardinality,
  ]);

/**
 * The candidate rules one event suggests: those of every synchronous extractor, each checked against
 * `CandidateRule`, without duplicates, in extractor order and then in the order each extractor gave them.
 *
 * @throws ZodError when an extractor drafts a malformed candidate, a defect of the extractor.
 */
export const draftCandidates = (event: SessionEventInput): CandidateRule[] => {
  const seen = new Set<string>();
  const drafted: CandidateRule[] = [];
  for (const extractor of DETERMINISTIC_EXTRACTORS) {
    if (extractor.mode !== 'synchronous') continue;
    for (const candidate of extractor.extract(event)) {
      const checked = CandidateRule.parse(attributed(candidate, event));
      const identity = identityOf(checked);
      if (seen.has(identity)) continue;
      seen.add(identity);
      drafted.push(checked);
    }
  }
  return drafted;
};
