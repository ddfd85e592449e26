import { describe, expect, it } from 'vitest';
import { hashedEmbedding } from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import {
  collapseExactDuplicates,
  DEFAULT_FUSION_WEIGHTS,
  DEFAULT_MMR_LAMBDA,
  fuseScores,
  normalisedTextHash,
  rankHybrid,
  rerankByMaximalMarginalRelevance,
} from '../../../lambdas/capabilities/retrieval/ranking/fusion.ts';

describe('Function: fuseScores', () => {
  it('divides BM25 by the best among the candidates and floors cosine at 0; a missed leg counts 0', () => {
    // Act
    const hits = fuseScores([
      { id: 'both', keyword: 4, semantic: 0.75 },
      { id: 'keywordOnly', keyword: 8 },
      { id: 'semanticOnly', semantic: 0.875 },
      { id: 'opposite', keyword: 2, semantic: -0.7 },
    ]);

    // Assess: the values are exact in binary, so the sums are too
    expect(hits).toEqual([
      { id: 'both', features: { keyword: 0.5, semantic: 0.75, fused: 0.625 } },
      { id: 'keywordOnly', features: { keyword: 1, semantic: 0, fused: 0.5 } },
      { id: 'semanticOnly', features: { keyword: 0, semantic: 0.875, fused: 0.4375 } },
      { id: 'opposite', features: { keyword: 0.25, semantic: 0, fused: 0.125 } },
    ]);
  });

  it('does not lift an unrelated document the semantic leg returned over a keyword match', () => {
    // Prepare: cosine 0 is a bounded similarity of 0.5, which fusion must not read as half relevant.
    const candidates = [
      { id: 'unrelated', semantic: 0 },
      { id: 'weakKeyword', keyword: 1, semantic: 0 },
      { id: 'strongKeyword', keyword: 10, semantic: 0 },
    ];

    // Act
    const hits = fuseScores(candidates);

    // Assess
    expect(hits.map((hit) => hit.id)).toEqual(['strongKeyword', 'weakKeyword', 'unrelated']);
    expect(hits[2]?.features.fused).toBe(0);
  });

  it('uses the weights it is given, and refuses ones that cannot rank', () => {
    // Prepare
    const candidates = [
      { id: 'k', keyword: 1, semantic: 0.1 },
      { id: 's', keyword: 0.1, semantic: 0.9 },
    ];

    // Act
    const keywordHeavy = fuseScores(candidates, { keyword: 0.9, semantic: 0.1 });
    const semanticHeavy = fuseScores(candidates, { keyword: 0.1, semantic: 0.9 });

    // Assess
    expect(DEFAULT_FUSION_WEIGHTS).toEqual({ keyword: 0.5, semantic: 0.5 });
    expect(keywordHeavy.map((hit) => hit.id)).toEqual(['k', 's']);
    expect(semanticHeavy.map((hit) => hit.id)).toEqual(['s', 'k']);
    expect(() => fuseScores(candidates, { keyword: 0, semantic: 0 })).toThrow(RangeError);
    expect(() => fuseScores(candidates, { keyword: -1, semantic: 1 })).toThrow(RangeError);
    expect(() => fuseScores(candidates, { keyword: Number.NaN, semantic: 1 })).toThrow(RangeError);
  });

  it('merges a document listed by each leg separately, and breaks ties by id', () => {
    // Act
    const hits = fuseScores([
      { id: 'b', keyword: 2 },
      { id: 'a', semantic: 0.5 },
      { id: 'a', keyword: 2 },
      { id: 'b', semantic: 0.5 },
    ]);

    // Assess
    expect(hits.map((hit) => [hit.id, hit.features.fused])).toEqual([
      ['a', 0.75],
      ['b', 0.75],
    ]);
  });
});

describe('Function: collapseExactDuplicates', () => {
  it('keeps the best-ranked hit of each normalised text', () => {
    // Prepare
    const texts: Record<string, string> = {
      first: 'Rotate the  signing keys',
      copy: 'rotate the signing keys ',
      other: 'Deploy the catalog',
    };
    const ranked = [{ id: 'first' }, { id: 'other' }, { id: 'copy' }, { id: 'unknown' }];

    // Act
    const kept = collapseExactDuplicates(ranked, (id) => {
      const text = texts[id];
      return text === undefined ? undefined : normalisedTextHash(text);
    });

    // Assess
    expect(kept.map((hit) => hit.id)).toEqual(['first', 'other', 'unknown']);
    expect(normalisedTextHash('ＡＢＣ')).toBe(normalisedTextHash('abc'));
  });
});

describe('Function: rerankByMaximalMarginalRelevance', () => {
  const texts: Record<string, string> = {
    best: 'rotate the signing keys every month before the audit',
    nearCopy: 'rotate the signing keys every month before an audit',
    distinct: 'key rotation schedule agreed with security team',
  };
  const vectorOf = (id: string) => {
    const text = texts[id];
    return text === undefined ? undefined : hashedEmbedding(text);
  };

  it('demotes a near-duplicate below a distinct, almost as relevant hit (λ = 0.7)', () => {
    // Prepare
    const ranked = fuseScores([
      { id: 'best', keyword: 10, semantic: 0.9 },
      { id: 'nearCopy', keyword: 9.8, semantic: 0.88 },
      { id: 'distinct', keyword: 8, semantic: 0.7 },
    ]);

    // Act
    const reranked = rerankByMaximalMarginalRelevance(ranked, vectorOf, { limit: 3 });

    // Assess
    expect(DEFAULT_MMR_LAMBDA).toBe(0.7);
    expect(ranked.map((hit) => hit.id)).toEqual(['best', 'nearCopy', 'distinct']);
    expect(reranked.map((hit) => hit.id)).toEqual(['best', 'distinct', 'nearCopy']);
    expect(reranked[0]?.features.mmr).toBeCloseTo(0.7 * (ranked[0]?.features.fused ?? 0), 12);
  });

  it('keeps the fused order when λ = 1, and stops at the limit', () => {
    // Prepare
    const ranked = fuseScores([
      { id: 'best', keyword: 10, semantic: 0.9 },
      { id: 'nearCopy', keyword: 9.8, semantic: 0.88 },
      { id: 'distinct', keyword: 8, semantic: 0.7 },
    ]);

    // Act
    const pureRelevance = rerankByMaximalMarginalRelevance(ranked, vectorOf, { limit: 3, lambda: 1 });
    const two = rerankByMaximalMarginalRelevance(ranked, vectorOf, { limit: 2 });

    // Assess
    expect(pureRelevance.map((hit) => hit.id)).toEqual(['best', 'nearCopy', 'distinct']);
    expect(two.map((hit) => hit.id)).toEqual(['best', 'distinct']);
    expect(() => rerankByMaximalMarginalRelevance(ranked, vectorOf, { limit: 3, lambda: 2 })).toThrow(RangeError);
  });
});

describe('Function: rankHybrid', () => {
  it('fuses, collapses exact duplicates, reranks, and reports every feature; the same input twice gives the same output', () => {
    // Prepare
    const texts: Record<string, string> = {
      a: 'rotate the signing keys every month',
      aCopy: 'Rotate the signing keys every month',
      b: 'deploy the catalog service on friday',
    };
    const candidates = [
      { id: 'a', keyword: 5, semantic: 0.5 },
      { id: 'aCopy', keyword: 5, semantic: 0.5 },
      { id: 'b', keyword: 2, semantic: 0.25 },
    ];
    const options = {
      limit: 10,
      vectorOf: (id: string) => hashedEmbedding(texts[id] ?? ''),
      textHashOf: (id: string) => normalisedTextHash(texts[id] ?? ''),
    };

    // Act
    const first = rankHybrid(candidates, options);
    const second = rankHybrid(candidates, options);

    // Assess
    expect(first.map((hit) => hit.id)).toEqual(['a', 'b']);
    expect(first[0]?.features).toMatchObject({ keyword: 1, semantic: 0.5, fused: 0.75 });
    expect(first[0]?.features.mmr).toBeCloseTo(0.7 * 0.75, 12);
    expect(Object.keys(first[1]?.features ?? {}).sort()).toEqual(['fused', 'keyword', 'mmr', 'semantic']);
    expect(second).toEqual(first);
  });
});
