import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { eng } from 'stopword';

/*
 * ANALYSIS for keyword search. The same function reads documents when they are indexed and queries when they
 * are searched, so a query term matches exactly what the same word became in the indexed text.
 *
 * 1. NFKC, then lower case (locale-independent), the typographic apostrophe folded into the ASCII one.
 * 2. Words by Unicode segmentation (Intl.Segmenter, UAX #29), keeping word-like segments only. ICU segments
 *    Chinese and Japanese, which have no spaces, with its dictionary; other scripts by the UAX #29 rules.
 * 3. The language's stop words are dropped (the `stopword` package's lists).
 * 4. Words in the Latin script are stemmed by the language's stemmer from `@orama/stemmers` (Porter's algorithm
 *    for English, Snowball for the others); words in other scripts are kept as they are, since these stemmers
 *    know none of them.
 *
 * The terms depend on the text, the language and the runtime's ICU data only. An index records its language;
 * it is rebuilt when the runtime changes, so that the segmentation of queries and of documents agrees.
 *
 * English is built in. The other languages' lists and stemmers (≈ 90 KB minified) are loaded only where a
 * process asks for them (`analysis-languages.ts`): the service indexes in English today, and every Lambda bundle
 * has to stay under 1 MB.
 */

/** The languages both libraries cover, by ISO 639-1 code: the Latin-script languages of Snowball. */
export const ANALYSIS_LANGUAGES = ['da', 'de', 'en', 'es', 'fi', 'fr', 'it', 'nb', 'nl', 'pt', 'sv'] as const;
export type AnalysisLanguage = (typeof ANALYSIS_LANGUAGES)[number];
export const DEFAULT_ANALYSIS_LANGUAGE: AnalysisLanguage = 'en';

export const isAnalysisLanguage = (value: string): value is AnalysisLanguage =>
  (ANALYSIS_LANGUAGES as readonly string[]).includes(value);

const foldCase = (text: string): string => text.normalize('NFKC').toLowerCase().replaceAll('\u2019', "'");

export interface LanguageAnalysis {
  readonly segmenter: Intl.Segmenter;
  readonly stopWords: ReadonlySet<string>;
  readonly stem: (word: string) => string;
}

export const languageAnalysis = (
  locale: AnalysisLanguage,
  stopWords: readonly string[],
  stem: (word: string) => string,
): LanguageAnalysis => ({
  segmenter: new Intl.Segmenter(locale, { granularity: 'word' }),
  // The lists are lower case but not always normalised: fold them as the text is folded, or some never match.
  stopWords: new Set(stopWords.map(foldCase)),
  stem,
});

/** The languages this process can analyse: English, and any `provideAnalysisLanguages` added. */
const LANGUAGES = new Map<AnalysisLanguage, LanguageAnalysis>([['en', languageAnalysis('en', eng, englishStemmer)]]);

/** Makes more languages available to `analyze` in this process (see analysis-languages.ts). */
export const provideAnalysisLanguages = (
  languages: readonly (readonly [AnalysisLanguage, LanguageAnalysis])[],
): void => {
  for (const [code, analysis] of languages) if (!LANGUAGES.has(code)) LANGUAGES.set(code, analysis);
};

const LATIN_LETTER = /\p{Script=Latin}/u;
const LETTER_OF_ANOTHER_SCRIPT = /(?!\p{Script=Latin})\p{L}/u;

/** Stemmed: words whose letters are all Latin (digits, apostrophes and marks may come with them). */
const isLatinWord = (word: string): boolean => LATIN_LETTER.test(word) && !LETTER_OF_ANOTHER_SCRIPT.test(word);

/** The terms of `text`, in order and with repeats (BM25 counts them). */
export function analyze(text: string, language: AnalysisLanguage = DEFAULT_ANALYSIS_LANGUAGE): string[] {
  const analysis = LANGUAGES.get(language);
  if (!analysis) throw new RangeError(`The analysis of language ${language} is not loaded in this process`);
  const { segmenter, stopWords, stem } = analysis;
  const terms: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(foldCase(text))) {
    if (!isWordLike || stopWords.has(segment)) continue;
    const term = isLatinWord(segment) ? stem(segment) : segment;
    if (term.length > 0) terms.push(term);
  }
  return terms;
}
