import { describe, expect, it } from 'vitest';
import { provideEveryAnalysisLanguage } from '../../../lambdas/capabilities/retrieval/ranking/analysis-languages.ts';
import { analyze } from '../../../lambdas/capabilities/retrieval/ranking/text-analysis.ts';

/** English is built in; the other languages only where a process provides them (they weigh ≈ 90 KB in a bundle). */
describe('Analysis languages', () => {
  it('refuses a language this process has not loaded, clearly, and analyses it once provided', () => {
    // Act
    const before = (() => {
      try {
        return analyze('les chats mangeaient', 'fr');
      } catch (error) {
        return error;
      }
    })();
    const english = analyze('the cats were eating');
    provideEveryAnalysisLanguage();
    const after = analyze('les chats mangeaient', 'fr');

    // Assess
    expect(before).toEqual(new RangeError('The analysis of language fr is not loaded in this process'));
    expect(english).toEqual(['cat', 'eat']);
    expect(after).toEqual(['chat', 'mang']);
  });
});
