import { stemmer as danishStemmer } from '@orama/stemmers/danish';
import { stemmer as dutchStemmer } from '@orama/stemmers/dutch';
import { stemmer as finnishStemmer } from '@orama/stemmers/finnish';
import { stemmer as frenchStemmer } from '@orama/stemmers/french';
import { stemmer as germanStemmer } from '@orama/stemmers/german';
import { stemmer as italianStemmer } from '@orama/stemmers/italian';
import { stemmer as norwegianStemmer } from '@orama/stemmers/norwegian';
import { stemmer as portugueseStemmer } from '@orama/stemmers/portuguese';
import { stemmer as spanishStemmer } from '@orama/stemmers/spanish';
import { stemmer as swedishStemmer } from '@orama/stemmers/swedish';
import { dan, deu, fin, fra, ita, nld, nob, por, spa, swe } from 'stopword';
import { languageAnalysis, provideAnalysisLanguages } from './text-analysis.ts';

/**
 * Every analysis language beyond English, for a process that indexes in one of them: importing this file costs a
 * bundle about 90 KB, so only what uses another language imports it.
 */
export const provideEveryAnalysisLanguage = (): void =>
  provideAnalysisLanguages([
    ['da', languageAnalysis('da', dan, danishStemmer)],
    ['de', languageAnalysis('de', deu, germanStemmer)],
    ['es', languageAnalysis('es', spa, spanishStemmer)],
    ['fi', languageAnalysis('fi', fin, finnishStemmer)],
    ['fr', languageAnalysis('fr', fra, frenchStemmer)],
    ['it', languageAnalysis('it', ita, italianStemmer)],
    ['nb', languageAnalysis('nb', nob, norwegianStemmer)],
    ['nl', languageAnalysis('nl', nld, dutchStemmer)],
    ['pt', languageAnalysis('pt', por, portugueseStemmer)],
    ['sv', languageAnalysis('sv', swe, swedishStemmer)],
  ]);
