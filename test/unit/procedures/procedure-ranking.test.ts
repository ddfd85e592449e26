import { describe, expect, it } from 'vitest';
import { adaptiveWeights } from '../../../lambdas/capabilities/procedures/adaptive-weights.ts';
import {
  CreateProcedureInput,
  type ProcedureContent,
} from '../../../lambdas/capabilities/procedures/procedure.schema.ts';
import { procedureFeatures, rankProcedures } from '../../../lambdas/capabilities/procedures/procedure-ranking.ts';
import { boundedSimilarity, hashedEmbedding } from '../../../lambdas/capabilities/retrieval/public.ts';

const procedure = (
  title: string,
  extra: { contextConditions?: string[]; exclusions?: string[]; step?: string } = {},
): ProcedureContent => ({
  ...CreateProcedureInput.parse({
    metadata: {
      title,
      description: title,
      taskFamily: 'general',
      contextConditions: extra.contextConditions ?? [],
      exclusions: extra.exclusions ?? [],
    },
    steps: [{ id: 's1', instruction: extra.step ?? 'Do the work' }],
  }),
  status: 'active',
  change: { kind: 'created' },
});

describe('Function: rankProcedures', () => {
  it('keeps only procedures whose context conditions all hold and whose exclusions meet none (case-insensitive)', () => {
    // Prepare
    const pool = [
      procedureFeatures('p1', 1, procedure('Clean kitchen', { contextConditions: ['Kitchen', 'sink available'] })),
      procedureFeatures(
        'p2',
        1,
        procedure('Clean kitchen', { contextConditions: ['kitchen'], exclusions: ['No Water'] }),
      ),
      procedureFeatures('p3', 1, procedure('Clean kitchen', { contextConditions: ['garden'] })),
    ];
    // Act
    const result = rankProcedures('clean kitchen', [' kitchen', 'SINK AVAILABLE', 'no water'], pool, {
      bm25: 0.5,
      vector: 0.5,
    });
    // Assess
    expect(result.candidates).toBe(1);
    expect(result.ranked.map((hit) => hit.id)).toEqual(['p1']);
  });

  it('scores w_b · BM25 / top + w_v · (cos + 1) / 2, top five, ties by BM25 then id', () => {
    // Prepare: seven procedures, two identical.
    const titles = [
      'Rotate signing key',
      'Rotate signing key',
      'Restart service',
      'Rotate logs',
      'Deploy service',
      'Key ceremony',
      'Water plants',
    ];
    const pool = titles.map((title, index) => procedureFeatures(`p${index}`, 1, procedure(title)));
    const weights = adaptiveWeights('rotate the signing key');
    // Act
    const { ranked } = rankProcedures('rotate the signing key', [], pool, weights);
    // Assess
    expect(ranked).toHaveLength(5);
    expect(ranked.slice(0, 2).map((hit) => hit.id)).toEqual(['p0', 'p1']);
    expect(ranked[0]?.features.bm25).toBe(1);
    for (const hit of ranked) {
      const text = pool.find((entry) => entry.id === hit.id)?.vector as Float32Array;
      expect(hit.features.similarity).toBeCloseTo(
        boundedSimilarity(hashedEmbedding('rotate the signing key'), text),
        12,
      );
      expect(hit.score).toBeCloseTo(0.5 * hit.features.bm25 + 0.5 * hit.features.similarity, 12);
    }
    expect(ranked.map((hit) => hit.score)).toEqual([...ranked.map((hit) => hit.score)].sort((a, b) => b - a));
  });

  it('computes BM25 with k1 = 1.5, b = 0.75 over the candidate set', () => {
    // Prepare: two documents; the query term occurs once in the first only.
    const pool = [procedureFeatures('a', 1, procedure('alpha')), procedureFeatures('b', 1, procedure('beta'))];
    const { ranked } = rankProcedures('alpha', [], pool, { bm25: 1, vector: 0 });
    // Assess: the indexed text is title, description, task family and the step: alpha alpha general do the work.
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const tf = 2;
    const expected = (idf * tf * 2.5) / (tf + 1.5 * (1 - 0.75 + 0.75 * (6 / 6)));
    expect(ranked[0]).toMatchObject({ id: 'a', score: 1 });
    expect(ranked[0]?.features.bm25Raw).toBeCloseTo(expected, 12);
    expect(ranked[1]?.features.bm25Raw).toBe(0);
  });
});
