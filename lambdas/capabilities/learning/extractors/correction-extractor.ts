import { type CandidateRule, sameValue } from '../belief.schema.ts';
import type { SynchronousExtractor } from './candidate-extractor.port.ts';

/*
 * A correction says what the principal wanted instead of what the agent did, about one rule key:
 * - `wanted` -> a declarative confirmation: the principal said it themselves, so it can mature at once;
 * - `did`, when given and different -> a behavioral refutation of what the agent did. Behavioral, not
 *   declarative: the principal asked for the other value rather than retracting this one, and a declarative
 *   refutation at the same instant as the declared `wanted` would take the key's latest declaration (a
 *   retraction wins a tie in the maturation gate), so the correction would stop `wanted` from applying.
 * The key is single-valued: a correction replaces one value with another.
 */
export const correctionExtractor: SynchronousExtractor = {
  name: 'correction',
  mode: 'synchronous',
  extract: (event) => {
    if (event.type !== 'correction') return [];
    const rule = { key: event.aspect, kind: event.kind, cardinality: 'single' } as const;
    const wanted: CandidateRule = { ...rule, value: event.wanted, basis: 'declarative', polarity: 'confirm' };
    if (event.did === undefined || sameValue(event.did, event.wanted)) return [wanted];
    return [wanted, { ...rule, value: event.did, basis: 'behavioral', polarity: 'refute' }];
  },
};
