import type { SynchronousExtractor } from './candidate-extractor.port.ts';

/**
 * A signal is a candidate rule the harness already drafted: it maps field for field. Its `agent` is the agent
 * the rule applies to, the same field as any event's agent; a profile signal cannot name one (the schema
 * refuses it).
 */
export const signalExtractor: SynchronousExtractor = {
  name: 'signal',
  mode: 'synchronous',
  extract: (event) => {
    if (event.type !== 'signal') return [];
    return [
      {
        key: event.key,
        value: event.value,
        kind: event.kind,
        basis: event.basis,
        cardinality: event.cardinality,
        polarity: event.polarity,
        ...(event.agent !== undefined && { agent: event.agent }),
      },
    ];
  },
};
