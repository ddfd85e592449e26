import { describe, expect, it } from 'vitest';
import { provideEveryAnalysisLanguage } from '../../../lambdas/capabilities/retrieval/ranking/analysis-languages.ts';
import {
  ANALYSIS_LANGUAGES,
  analyze,
  isAnalysisLanguage,
} from '../../../lambdas/capabilities/retrieval/ranking/text-analysis.ts';

// These tests analyse other languages than the built-in English too.
provideEveryAnalysisLanguage();

describe('Function: analyze', () => {
  describe('Normalisation and words', () => {
    it('folds compatibility forms and case before anything else', () => {
      // Act
      const fullWidth = analyze('ＲＵＮＮＩＮＧ');
      const ligature = analyze('ﬁles');

      // Assess
      expect(fullWidth).toEqual(analyze('running'));
      expect(ligature).toEqual(analyze('files'));
    });

    it('keeps word-like segments only, and repeats', () => {
      // Act
      const terms = analyze('Keys: rotate, rotate — and 42 tokens!');

      // Assess
      // English stems by Porter's algorithm: "keys" → "kei", "rotate" → "rotat".
      expect(terms).toEqual(['kei', 'rotat', 'rotat', '42', 'token']);
    });

    it('reads the typographic apostrophe as the ASCII one', () => {
      expect(analyze('the team’s keys')).toEqual(analyze("the team's keys"));
    });

    it('never yields an empty term, or one with white space or a control character (the index joins terms with a space)', () => {
      // Act
      const terms = analyze('a\u0000b\u0001c \u0007 tab\there\r\nnext\u00a0non\u2009breaking\u3000wide');

      // Assess
      expect(terms).toEqual(['b', 'c', 'tab', 'next', 'non', 'break', 'wide']);
      for (const term of terms) expect(term).toMatch(/^[^\s\p{Cc}]+$/u);
    });
  });

  describe('Stop words and stemming', () => {
    it('drops English stop words by default', () => {
      expect(analyze('the and of to it is')).toEqual([]);
    });

    it('stems inflections of a word to one term', () => {
      // Act
      const forms = ['running', 'runs', 'run'].map((word) => analyze(word));

      // Assess
      expect(forms).toEqual([['run'], ['run'], ['run']]);
    });

    it('does not stem words in other scripts', () => {
      // Act
      const russian = analyze('бегущий бегущие');
      const greek = analyze('τρέχοντας');

      // Assess
      expect(russian).toEqual(['бегущий', 'бегущие']);
      expect(greek).toEqual(['τρέχοντας']);
    });

    it('uses the stop words and stemmer of the language asked for', () => {
      // Act
      const french = analyze('les chats mangeaient', 'fr');
      const german = analyze('die Häuser und Bäume', 'de');
      const frenchReadAsEnglish = analyze('les chats mangeaient');

      // Assess
      expect(french).toEqual(['chat', 'mang']);
      expect(german).toEqual(['haus', 'baum']);
      expect(frenchReadAsEnglish).toHaveLength(3);
    });
  });

  describe('Chinese, Japanese and Korean', () => {
    it('segments Chinese and Japanese by dictionary, so a word of the text is a term of its own', () => {
      // Act
      const chinese = analyze('我喜欢吃苹果');
      const japanese = analyze('東京に住んでいます');

      // Assess
      expect(chinese).toContain('苹果');
      expect(analyze('苹果')).toEqual(['苹果']);
      expect(japanese).toContain('東京');
      expect(analyze('東京')).toEqual(['東京']);
    });

    it('splits Korean at its spaces', () => {
      expect(analyze('안녕하세요 세계')).toEqual(['안녕하세요', '세계']);
    });
  });

  it('is deterministic', () => {
    // Prepare
    const text = 'Running the 東京 deploy: rotate keys, then verify the catalog';

    // Act and assess
    expect(analyze(text)).toEqual(analyze(text));
  });
});

describe('Function: isAnalysisLanguage', () => {
  it('accepts the supported codes only', () => {
    expect(ANALYSIS_LANGUAGES.every((language) => isAnalysisLanguage(language))).toBe(true);
    expect(isAnalysisLanguage('zh')).toBe(false);
    expect(isAnalysisLanguage('english')).toBe(false);
  });
});
