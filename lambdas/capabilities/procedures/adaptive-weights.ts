import { hashingTokens } from '../retrieval/public.ts';

/*
 * ADAPTIVE RETRIEVAL WEIGHTS (reference 001 §B.1, Table 3). Two logits, BM25 and vector, start at 0; a query's
 * whole-word cues raise one of them, each group once however many of its words appear:
 *   code · debug · implement · coding     → vector +1.0
 *   latest · current · real-time · today  → BM25  +0.8
 *   routine · repeat · standard           → BM25  +0.6
 * The project's learned biases are added to them, and w_b, w_v = softmax(logits). No cue and no bias: 0.5 / 0.5.
 * Disabling adaptation fixes 0.5 / 0.5 whatever the cues and biases.
 *
 * FEEDBACK: which signal served a retrieval moves the biases by one gradient step of the cross-entropy
 * −log w_served with respect to the logits, at learning rate η (default 0.2):
 *   bias_s ← bias_s − η · (w_s − 1[s = served])   for s ∈ {bm25, vector}
 * e.g. "routine task" (w_b = 0.6457) with BM25 served: each bias moves by η · 0.3543 = 0.0709, and the next
 * "routine task" weighs 0.6774 / 0.3226.
 */

export type RetrievalSignal = 'bm25' | 'vector';

export interface RetrievalLogits {
  readonly bm25: number;
  readonly vector: number;
}

export const NO_BIAS: RetrievalLogits = { bm25: 0, vector: 0 };

export interface RoutingCue {
  readonly words: readonly string[];
  readonly signal: RetrievalSignal;
  readonly increment: number;
}

export const ROUTING_CUES: readonly RoutingCue[] = [
  { words: ['code', 'debug', 'implement', 'coding'], signal: 'vector', increment: 1.0 },
  { words: ['latest', 'current', 'real-time', 'today'], signal: 'bm25', increment: 0.8 },
  { words: ['routine', 'repeat', 'standard'], signal: 'bm25', increment: 0.6 },
];

export interface AdaptiveWeights {
  readonly bm25: number;
  readonly vector: number;
  /** The logits the weights are the softmax of: cues plus the project's biases. */
  readonly logits: RetrievalLogits;
  /** The cue words that fired, one per group, in the table's order. */
  readonly cues: readonly string[];
  readonly adaptive: boolean;
}

/**
 * The query's whole words: the reference tokens, plus hyphenated runs ("real-time"), so that a cue matches a
 * word and never the inside of one ("decode" is not "code").
 */
const wordsOf = (query: string): Set<string> => {
  const words = new Set(hashingTokens(query));
  for (const hyphenated of query.toLowerCase().match(/[\p{L}\p{N}_]+(?:-[\p{L}\p{N}_]+)+/gu) ?? [])
    words.add(hyphenated);
  return words;
};

const softmax = (logits: RetrievalLogits): { bm25: number; vector: number } => {
  // Shifted by the larger logit so that neither exponential overflows.
  const top = Math.max(logits.bm25, logits.vector);
  const bm25 = Math.exp(logits.bm25 - top);
  const vector = Math.exp(logits.vector - top);
  return { bm25: bm25 / (bm25 + vector), vector: vector / (bm25 + vector) };
};

export function adaptiveWeights(
  query: string,
  options: { readonly adaptive?: boolean; readonly bias?: RetrievalLogits } = {},
): AdaptiveWeights {
  if (options.adaptive === false) return { bm25: 0.5, vector: 0.5, logits: NO_BIAS, cues: [], adaptive: false };
  const words = wordsOf(query);
  const bias = options.bias ?? NO_BIAS;
  const logits = { bm25: bias.bm25, vector: bias.vector };
  const cues: string[] = [];
  for (const cue of ROUTING_CUES) {
    const word = cue.words.find((candidate) => words.has(candidate));
    if (word === undefined) continue;
    logits[cue.signal] += cue.increment;
    cues.push(word);
  }
  return { ...softmax(logits), logits, cues, adaptive: true };
}

/** The project's biases after one cross-entropy step towards `served` on a retrieval weighed `weights`. */
export function feedbackStep(
  bias: RetrievalLogits,
  weights: { readonly bm25: number; readonly vector: number },
  served: RetrievalSignal,
  learningRate: number,
): RetrievalLogits {
  if (!(Number.isFinite(learningRate) && learningRate > 0)) throw new RangeError('The learning rate must be positive');
  const target = (signal: RetrievalSignal) => (signal === served ? 1 : 0);
  return {
    bm25: bias.bm25 - learningRate * (weights.bm25 - target('bm25')),
    vector: bias.vector - learningRate * (weights.vector - target('vector')),
  };
}
