import { beforeAll, describe, expect, it } from 'vitest';
import { TermOverlapRanker } from '../../../bench/retrieval-quality/baseline.ts';
import { parseSessionId } from '../../../bench/retrieval-quality/conversations.ts';
import {
  buildRetrievalSet,
  type LabelledQuery,
  type Memory,
  QUERY_CATEGORIES,
  type RetrievalSet,
} from '../../../bench/retrieval-quality/dataset.ts';
import { evaluate, ndcgAtK, recallAtK } from '../../../bench/retrieval-quality/metrics.ts';
import { detectInstructionInjection } from '../../../lambdas/kernel/protection/instruction-injection.ts';
import { screenSensitiveContent } from '../../../lambdas/kernel/protection/sensitive-content-screen.ts';

const LOG2_OF_3 = Math.log2(3);

describe('Module: retrieval-quality/metrics', () => {
  const labels = [
    { id: 'a', grade: 2 as const },
    { id: 'b', grade: 2 as const },
    { id: 'c', grade: 1 as const },
  ];

  describe('Method: recallAtK', () => {
    it('is 1 for a ranking that puts every answering memory in the top k', () => {
      // Act
      const recall = recallAtK(['a', 'b', 'x', 'c'], labels, 2);

      // Assess
      expect(recall).toBe(1);
    });

    it('counts only grade-2 memories, so a related memory in the top k adds nothing', () => {
      // Act
      const reversed = recallAtK(['c', 'x', 'b', 'a'], labels, 2);
      const half = recallAtK(['c', 'b', 'x', 'a'], labels, 2);

      // Assess
      expect(reversed).toBe(0);
      expect(half).toBe(0.5);
    });

    it('falls back to the grade-1 memories when a query has no grade-2 label, and is 0 with no labels', () => {
      // Act
      const related = recallAtK(['x', 'c'], [{ id: 'c', grade: 1 }], 2);
      const unlabelled = recallAtK(['a', 'b'], [], 2);

      // Assess
      expect(related).toBe(1);
      expect(unlabelled).toBe(0);
    });

    it('counts a repeated id once and refuses a cut-off that is not a positive integer', () => {
      // Act
      const repeated = recallAtK(['a', 'a', 'a'], labels, 3);

      // Assess
      expect(repeated).toBe(0.5);
      expect(() => recallAtK(['a'], labels, 0)).toThrow(RangeError);
      expect(() => recallAtK(['a'], labels, 1.5)).toThrow(RangeError);
    });
  });

  describe('Method: ndcgAtK', () => {
    it('is 1 for the ideal order and 0 when nothing relevant is ranked or labelled', () => {
      // Act
      const ideal = ndcgAtK(['a', 'b', 'c'], labels, 3);
      const nothingFound = ndcgAtK(['x', 'y'], labels, 2);
      const nothingLabelled = ndcgAtK(['a', 'b'], [], 2);

      // Assess
      expect(ideal).toBeCloseTo(1, 12);
      expect(nothingFound).toBe(0);
      expect(nothingLabelled).toBe(0);
    });

    it('weighs grades by 2^grade - 1 and positions by log2(rank + 1)', () => {
      // Prepare: one grade-2 and one grade-1 memory, ranked the wrong way round
      const graded = [
        { id: 'a', grade: 2 as const },
        { id: 'c', grade: 1 as const },
      ];

      // Act
      const swapped = ndcgAtK(['c', 'a'], graded, 2);

      // Assess: (1/1 + 3/log2 3) / (3/1 + 1/log2 3)
      expect(swapped).toBeCloseTo((1 + 3 / LOG2_OF_3) / (3 + 1 / LOG2_OF_3), 12);
    });

    it('takes the ideal from the k best labels, so a cut-off below the label count can still reach 1', () => {
      // Act
      const cut = ndcgAtK(['b', 'a'], labels, 2);
      const reversed = ndcgAtK(['c', 'b', 'a'], labels, 3);

      // Assess
      expect(cut).toBeCloseTo(1, 12);
      const ideal = 3 + 3 / LOG2_OF_3 + 1 / 2;
      expect(reversed).toBeCloseTo((1 + 3 / LOG2_OF_3 + 3 / 2) / ideal, 12);
    });
  });

  describe('Method: evaluate', () => {
    it('averages per query, overall and per category, at every cut-off', async () => {
      // Prepare
      const queries: LabelledQuery[] = [
        { id: 'q1', text: 'one', category: 'first', relevant: [{ id: 'a', grade: 2 }] },
        { id: 'q2', text: 'two', category: 'first', relevant: [{ id: 'b', grade: 2 }] },
        { id: 'q3', text: 'three', category: 'second', relevant: [{ id: 'c', grade: 2 }] },
      ];
      const rankings: Record<string, string[]> = { q1: ['a'], q2: ['x', 'b'], q3: ['x'] };

      // Act
      const report = await evaluate(queries, async (query) => rankings[query.id] ?? [], [1, 2]);

      // Assess
      expect(report.overall.queries).toBe(3);
      expect(report.overall.recall[1]).toBeCloseTo(1 / 3, 12);
      expect(report.overall.recall[2]).toBeCloseTo(2 / 3, 12);
      expect(report.categories.first?.recall[2]).toBe(1);
      expect(report.categories.first?.ndcg[2]).toBeCloseTo((1 + 1 / LOG2_OF_3) / 2, 12);
      expect(report.categories.second).toEqual({ queries: 1, recall: { 1: 0, 2: 0 }, ndcg: { 1: 0, 2: 0 } });
    });
  });
});

describe('Module: retrieval-quality/dataset', () => {
  describe('Method: buildRetrievalSet', () => {
    let set: RetrievalSet;
    let byId: Map<string, Memory>;

    beforeAll(() => {
      set = buildRetrievalSet();
      byId = new Map(set.memories.map((memory) => [memory.id, memory]));
    });

    const queriesOf = (category: string): LabelledQuery[] => set.queries.filter((query) => query.category === category);
    const memoriesOf = (query: LabelledQuery, grade: 1 | 2): Memory[] =>
      query.relevant.filter((label) => label.grade === grade).map((label) => byId.get(label.id) as Memory);

    it('is the same set for the same seed and a different one for another seed', () => {
      // Act
      const again = buildRetrievalSet();
      const other = buildRetrievalSet({ seed: 13 });

      // Assess
      expect(again).toEqual(set);
      expect(other.queries.map((query) => query.text)).not.toEqual(set.queries.map((query) => query.text));
    });

    it('keeps the labelled queries when only the background grows, and refuses a size below the labelled part', () => {
      // Act
      const larger = buildRetrievalSet({ memories: 8000 });

      // Assess
      expect(larger.memories).toHaveLength(8000);
      expect(larger.queries.map((query) => [query.id, query.text])).toEqual(
        set.queries.map((query) => [query.id, query.text]),
      );
      expect(() => buildRetrievalSet({ memories: 100 })).toThrow(RangeError);
    });

    it('holds at least 5,000 memories of both kinds and 200 queries in every category', () => {
      // Assess
      expect(set.memories.length).toBeGreaterThanOrEqual(5000);
      expect(set.memories.some((memory) => memory.kind === 'belief' && memory.ruleKey)).toBe(true);
      expect(set.memories.some((memory) => memory.kind === 'note')).toBe(true);
      expect(set.queries.length).toBeGreaterThanOrEqual(200);
      expect(new Set(set.queries.map((query) => query.category))).toEqual(new Set(QUERY_CATEGORIES));
      expect(queriesOf('conversational').length).toBeGreaterThanOrEqual(60);
    });

    it('gives unique ids, labels only memories that exist, and gives every query a memory that answers it', () => {
      // Assess
      expect(byId.size).toBe(set.memories.length);
      expect(new Set(set.queries.map((query) => query.id)).size).toBe(set.queries.length);
      for (const query of set.queries) {
        expect(query.relevant.every((label) => byId.has(label.id))).toBe(true);
        expect(new Set(query.relevant.map((label) => label.id)).size).toBe(query.relevant.length);
        expect(query.relevant.some((label) => label.grade === 2)).toBe(true);
      }
    });

    it('answers every conversational query from earlier turns of the same conversation', () => {
      // Assess
      for (const query of queriesOf('conversational')) {
        const asked = parseSessionId(query.session ?? '');
        expect(asked).toBeDefined();
        for (const label of query.relevant) {
          const memory = byId.get(label.id);
          const said = parseSessionId(memory?.session ?? '');
          expect(said?.conversation).toBe(asked?.conversation);
          const earlier =
            (said?.ordinal ?? Infinity) < (asked?.ordinal ?? 0) ||
            (said?.ordinal === asked?.ordinal && (memory?.turn ?? Infinity) < (query.turn ?? 0));
          expect(earlier).toBe(true);
        }
      }
    });

    it('answers a temporal query with a memory newer than every superseded one it also labels', () => {
      // Assess
      for (const query of queriesOf('temporal')) {
        const newest = Math.min(...memoriesOf(query, 2).map((memory) => Date.parse(memory.createdAt)));
        const older = memoriesOf(query, 1).map((memory) => Date.parse(memory.createdAt));
        expect(older.length).toBeGreaterThan(0);
        expect(older.every((instant) => instant < newest)).toBe(true);
      }
    });

    it('answers an entity-relation query only with two memories together', () => {
      // Assess
      for (const query of queriesOf('entity-relation')) {
        expect(memoriesOf(query, 2).length).toBeGreaterThanOrEqual(2);
      }
    });

    it('writes only text the service would store: nothing the write screen refuses or quarantines', () => {
      // Act
      const refused = set.memories.filter(
        (memory) =>
          screenSensitiveContent({ text: memory.text, tags: memory.tags }).verdict !== 'clean' ||
          detectInstructionInjection(memory.text).verdict !== 'clean',
      );

      // Assess
      expect(refused.map((memory) => memory.text)).toEqual([]);
    });

    it('is neither trivial nor impossible for plain term overlap (Recall@10 strictly between 0.2 and 0.9)', async () => {
      // Prepare
      const ranker = new TermOverlapRanker(set.memories);

      // Act
      const report = await evaluate(set.queries, async (query) => ranker.rank(query.text, 10), [10]);

      // Assess
      expect(report.overall.recall[10]).toBeGreaterThan(0.2);
      expect(report.overall.recall[10]).toBeLessThan(0.9);
    });
  });
});
