import { describe, expect, it } from 'vitest';
import { adaptiveWeights, feedbackStep, NO_BIAS } from '../../../lambdas/capabilities/procedures/adaptive-weights.ts';

describe('Function: adaptiveWeights', () => {
  it('gives the reference weights for the Table 3 cues', () => {
    // Prepare / Act
    const routine = adaptiveWeights('routine task');
    const debug = adaptiveWeights('debug the code');
    const plain = adaptiveWeights('rank verified catalog results');
    // Assess
    expect(routine.bm25).toBeCloseTo(0.6457, 4);
    expect(routine.vector).toBeCloseTo(0.3543, 4);
    expect(debug.bm25).toBeCloseTo(0.2689, 4);
    expect(debug.vector).toBeCloseTo(0.7311, 4);
    expect(plain).toMatchObject({ bm25: 0.5, vector: 0.5, cues: [] });
  });

  it('counts each cue group once and matches whole words only', () => {
    expect(adaptiveWeights('debug code while coding').logits).toEqual({ bm25: 0, vector: 1 });
    expect(adaptiveWeights('decode the barcode').cues).toEqual([]);
    expect(adaptiveWeights('real-time latest feed').logits.bm25).toBeCloseTo(0.8, 12);
    expect(adaptiveWeights('the real time feed').cues).toEqual([]);
    expect(adaptiveWeights('standard CURRENT code').logits).toEqual({ bm25: 1.4, vector: 1 });
  });

  it('fixes 0.5 / 0.5 when adaptation is disabled, whatever the cues and biases', () => {
    expect(adaptiveWeights('debug the code', { adaptive: false, bias: { bm25: 3, vector: -1 } })).toMatchObject({
      bm25: 0.5,
      vector: 0.5,
      adaptive: false,
    });
  });
});

describe('Function: feedbackStep', () => {
  it('moves the biases by one cross-entropy step towards the signal that served', () => {
    // Prepare
    const before = adaptiveWeights('routine task');
    // Act
    const bias = feedbackStep(NO_BIAS, before, 'bm25', 0.2);
    const after = adaptiveWeights('routine task', { bias });
    // Assess: each bias moves by 0.2 · (1 − 0.6457) = 0.0709
    expect(bias.bm25).toBeCloseTo(0.2 * (1 - before.bm25), 12);
    expect(bias.vector).toBeCloseTo(-0.2 * before.vector, 12);
    expect(after.bm25).toBeCloseTo(0.6774, 4);
    expect(after.bm25 + after.vector).toBeCloseTo(1, 12);
  });

  it('refuses a learning rate that is not positive', () => {
    expect(() => feedbackStep(NO_BIAS, { bm25: 0.5, vector: 0.5 }, 'vector', 0)).toThrow(RangeError);
  });
});
