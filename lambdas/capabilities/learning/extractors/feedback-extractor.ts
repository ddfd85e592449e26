import type { SynchronousExtractor } from './candidate-extractor.port.ts';

/*
 * Feedback on an applied belief is evidence about that rule: positive confirms it, negative refutes it. It is
 * behavioral: the principal reacted to what the agent did, they did not state the rule.
 *
 * Feedback on an output yields nothing here: an output reference names no rule key, and which aspect of the
 * output was good or bad is not said. Reading that out of the comment is a job for an asynchronous,
 * model-based strategy, not for a pattern.
 */
export const feedbackExtractor: SynchronousExtractor = {
  name: 'feedback',
  mode: 'synchronous',
  extract: (event) => {
    if (event.type !== 'feedback' || event.belief === undefined) return [];
    const { key, value, kind, cardinality } = event.belief;
    return [
      {
        key,
        value,
        kind,
        cardinality,
        basis: 'behavioral',
        polarity: event.rating === 'positive' ? 'confirm' : 'refute',
      },
    ];
  },
};
