/**
 * What other capabilities may use of retrieval: the reference text representation (reference 001 §B.1), which
 * procedure ranking and goal alignment compare texts with. Anything not exported here is retrieval's own.
 */
export {
  boundedSimilarity,
  cosineSimilarity,
  hashedEmbedding,
  hashingTokens,
} from './ranking/feature-hashing.ts';
export { BM25_B, BM25_K1 } from './ranking/keyword-index.ts';
export { analyze } from './ranking/text-analysis.ts';
