/**
 * A reference scorer used only to sanity-check the set, never as a retrieval strategy: a memory scores the
 * number of distinct query terms it contains (text, tags and rule key; lower-cased runs of Unicode letters
 * and digits, without a short list of English function words; no stemming, no weighting). Ties keep the
 * set's order, which the generator shuffled. If this found everything the set would be trivial; if it found
 * nothing, impossible.
 */
import type { Memory } from './dataset.ts';

// biome-ignore format: a word list reads better filled than one word a line
const STOP_WORDS = new Set([
  'a', 'about', 'after', 'all', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'been', 'but', 'by', 'can', 'did', 'do',
  'does', 'for', 'from', 'had', 'has', 'have', 'he', 'her', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its',
  'me', 'my', 'of', 'on', 'or', 'our', 's', 'she', 'should', 'so', 'that', 'the', 'their', 'them', 'there', 'these',
  'they', 'this', 'to', 'up', 'was', 'we', 'were', 'what', 'when', 'where', 'which', 'who', 'why', 'will', 'with',
  'would', 'you', 'your',
]);

const TERM = /[\p{L}\p{N}]+/gu;

/** The distinct terms of a text, as the overlap scorer sees them. */
export const overlapTerms = (text: string): Set<string> =>
  new Set((text.toLowerCase().match(TERM) ?? []).filter((term) => !STOP_WORDS.has(term)));

export class TermOverlapRanker {
  readonly #postings = new Map<string, number[]>();
  readonly #memories: readonly Memory[];

  constructor(memories: readonly Memory[]) {
    this.#memories = memories;
    memories.forEach((memory, index) => {
      const text = [memory.text, ...memory.tags, memory.ruleKey ?? ''].join(' ');
      for (const term of overlapTerms(text)) {
        const list = this.#postings.get(term);
        if (list) list.push(index);
        else this.#postings.set(term, [index]);
      }
    });
  }

  /** The ids of the k memories sharing the most distinct terms with the query (none sharing no term). */
  rank(query: string, k = 10): string[] {
    const scores = new Map<number, number>();
    for (const term of overlapTerms(query)) {
      for (const index of this.#postings.get(term) ?? []) scores.set(index, (scores.get(index) ?? 0) + 1);
    }
    return [...scores]
      .sort(([indexA, scoreA], [indexB, scoreB]) => scoreB - scoreA || indexA - indexB)
      .slice(0, k)
      .map(([index]) => this.#memories[index]?.id ?? '');
  }
}
