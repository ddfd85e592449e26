import { describe, expect, it } from 'vitest';
import { provideEveryAnalysisLanguage } from '../../../lambdas/capabilities/retrieval/ranking/analysis-languages.ts';
import {
  BM25_B,
  BM25_K1,
  type KeywordDocument,
  KeywordIndex,
} from '../../../lambdas/capabilities/retrieval/ranking/keyword-index.ts';

// These tests analyse other languages than the built-in English too.
provideEveryAnalysisLanguage();

const indexOf = (documents: readonly KeywordDocument[], language?: 'en' | 'fr'): KeywordIndex => {
  const index = new KeywordIndex(language === undefined ? {} : { language });
  for (const document of documents) index.upsert(document);
  return index;
};

const CORPUS: readonly KeywordDocument[] = [
  { id: 'a', text: 'rotate signing keys monthly' },
  { id: 'b', text: 'signing keys rotate, rotate and rotate again' },
  { id: 'c', text: 'lunch menu for friday' },
  { id: 'd', text: 'deploy the catalog service' },
];

describe('Class: KeywordIndex', () => {
  describe('Method: search', () => {
    it('scores BM25 with k1 = 1.5 and b = 0.75, and divides by the top score', () => {
      // Prepare: terms after analysis — a: rotat sign key month (4); b: sign key rotat rotat rotat again (6);
      // c: lunch menu friday (3); d: deploy catalog servic (3). N = 4, avgdl = 16 / 4 = 4.
      const index = indexOf(CORPUS);
      const idf = (df: number) => Math.log(1 + (4 - df + 0.5) / (df + 0.5));
      const part = (tf: number, length: number) =>
        (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / 4));
      const rawA = idf(2) * part(1, 4) + idf(2) * part(1, 4);
      const rawB = idf(2) * part(3, 6) + idf(2) * part(1, 6);

      // Act
      const hits = index.search('rotate keys', 10);

      // Assess
      expect(hits.map((hit) => hit.id)).toEqual(['b', 'a']);
      expect(hits[0]?.raw).toBeCloseTo(rawB, 12);
      expect(hits[1]?.raw).toBeCloseTo(rawA, 12);
      expect(hits[0]?.score).toBe(1);
      expect(hits[1]?.score).toBeCloseTo(rawA / rawB, 12);
    });

    it('counts a repeated query term once', () => {
      // Prepare
      const index = indexOf(CORPUS);

      // Act and assess
      expect(index.search('keys keys keys', 10)).toEqual(index.search('keys', 10));
    });

    it('finds other inflections of a word (stemming)', () => {
      // Prepare
      const index = indexOf([
        { id: 'runs', text: 'the job runs nightly' },
        { id: 'other', text: 'the job stops nightly' },
      ]);

      // Act
      const hits = index.search('running', 10);

      // Assess
      expect(hits.map((hit) => hit.id)).toEqual(['runs']);
    });

    it('matches nothing on stop words alone', () => {
      // Prepare
      const index = indexOf([{ id: 'a', text: 'the keys of the kingdom' }]);

      // Act and assess
      expect(index.search('the of', 10)).toEqual([]);
      expect(index.search('', 10)).toEqual([]);
    });

    it('matches a Chinese or Japanese query word inside indexed text', () => {
      // Prepare
      const index = indexOf([
        { id: 'zh', text: '我喜欢吃苹果' },
        { id: 'ja', text: '東京に住んでいます' },
        { id: 'en', text: 'apples in tokyo' },
      ]);

      // Act and assess
      expect(index.search('苹果', 10).map((hit) => hit.id)).toEqual(['zh']);
      expect(index.search('東京', 10).map((hit) => hit.id)).toEqual(['ja']);
    });

    it('breaks equal scores by id and honours the limit', () => {
      // Prepare
      const index = indexOf([
        { id: 'z', text: 'catalog entry' },
        { id: 'm', text: 'catalog entry' },
        { id: 'a', text: 'catalog entry' },
      ]);

      // Act
      const all = index.search('catalog', 10);
      const two = index.search('catalog', 2);

      // Assess
      expect(all.map((hit) => hit.id)).toEqual(['a', 'm', 'z']);
      expect(all.map((hit) => hit.score)).toEqual([1, 1, 1]);
      expect(two.map((hit) => hit.id)).toEqual(['a', 'm']);
      expect(index.search('catalog', 0)).toEqual([]);
    });

    it('selects the best hits `keep` accepts, as filtering every hit would, scored against the query’s top', () => {
      // Prepare
      const index = indexOf(CORPUS);
      const keep = (id: string) => id !== 'b';

      // Act
      const kept = index.search('rotate signing keys', 1, keep);
      const everyHit = index.search('rotate signing keys', index.size);

      // Assess: b is the top hit; a, the best one kept, keeps the score it had beside b
      expect(everyHit[0]?.id).toBe('b');
      expect(kept).toEqual(everyHit.filter((hit) => keep(hit.id)).slice(0, 1));
      expect(kept[0]?.score).toBeLessThan(1);
      expect(index.search('rotate signing keys', 5, () => false)).toEqual([]);
    });

    it('analyses with the index language', () => {
      // Prepare
      const index = indexOf([{ id: 'fr', text: 'les chats mangeaient' }], 'fr');

      // Act and assess
      expect(index.search('chat', 10).map((hit) => hit.id)).toEqual(['fr']);
      expect(index.search('les', 10)).toEqual([]);
    });
  });

  describe('Method: upsert and remove', () => {
    it('replaces a document that has the same id, so its old words no longer match', () => {
      // Prepare
      const index = indexOf(CORPUS);

      // Act
      index.upsert({ id: 'c', text: 'dinner menu for saturday' });

      // Assess
      expect(index.size).toBe(4);
      expect(index.search('lunch', 10)).toEqual([]);
      expect(index.search('dinner', 10).map((hit) => hit.id)).toEqual(['c']);
    });

    it('removes a document and says whether there was one', () => {
      // Prepare
      const index = indexOf(CORPUS);

      // Act
      const removed = index.remove('b');
      const removedAgain = index.remove('b');

      // Assess
      expect([removed, removedAgain]).toEqual([true, false]);
      expect(index.size).toBe(3);
      expect(index.has('b')).toBe(false);
      expect(index.has('a')).toBe(true);
      expect(index.search('rotate', 10).map((hit) => hit.id)).toEqual(['a']);
    });

    it('scores after changes exactly as a fresh index of the final documents', () => {
      // Prepare
      const changed = indexOf(CORPUS);
      changed.upsert({ id: 'e', text: 'rotate the catalog keys' });
      changed.remove('c');
      changed.upsert({ id: 'a', text: 'keys rotate every month on the first' });
      const fresh = indexOf([
        { id: 'a', text: 'keys rotate every month on the first' },
        { id: 'b', text: 'signing keys rotate, rotate and rotate again' },
        { id: 'd', text: 'deploy the catalog service' },
        { id: 'e', text: 'rotate the catalog keys' },
      ]);

      // Act and assess
      for (const query of ['rotate keys', 'catalog', 'month first deploy'])
        expect(changed.search(query, 10)).toEqual(fresh.search(query, 10));
    });
  });

  describe('Method: serialize and deserialize', () => {
    it('loads an index that scores exactly as the original and can still be changed', () => {
      // Prepare
      const original = indexOf(CORPUS);
      original.upsert({ id: 'b', text: 'signing keys rotate weekly' });

      // Act
      const loaded = KeywordIndex.deserialize(original.serialize());

      // Assess
      expect(loaded.size).toBe(original.size);
      expect(loaded.language).toBe('en');
      for (const query of ['rotate keys', 'catalog deploy', 'menu'])
        expect(loaded.search(query, 10)).toEqual(original.search(query, 10));
      loaded.remove('a');
      original.remove('a');
      loaded.upsert({ id: 'f', text: 'rotate it' });
      original.upsert({ id: 'f', text: 'rotate it' });
      expect(loaded.search('rotate keys', 10)).toEqual(original.search('rotate keys', 10));
    });

    it('keeps the language', () => {
      // Prepare
      const original = indexOf([{ id: 'fr', text: 'les chats' }], 'fr');

      // Act
      const loaded = KeywordIndex.deserialize(original.serialize());

      // Assess
      expect(loaded.language).toBe('fr');
      expect(loaded.search('chat', 10).map((hit) => hit.id)).toEqual(['fr']);
    });

    it('refuses bytes that are not a whole serialised index', () => {
      // Prepare
      const notAnIndex = new TextEncoder().encode(JSON.stringify({ format: 'something-else', version: 1 }));
      const whole = indexOf(CORPUS).serialize();

      // Act and assess
      expect(() => KeywordIndex.deserialize(notAnIndex)).toThrow(RangeError);
      expect(() => KeywordIndex.deserialize(whole.slice(0, whole.byteLength - 1))).toThrow(RangeError);
      expect(() => KeywordIndex.deserialize(Uint8Array.from([...whole, 0]))).toThrow(RangeError);
    });

    it('serialises an empty index, and a document without terms', () => {
      // Prepare
      const empty = new KeywordIndex();
      const onlyStopWords = indexOf([{ id: 'a', text: 'the and of' }, ...CORPUS.slice(1)]);

      // Act
      const loadedEmpty = KeywordIndex.deserialize(empty.serialize());
      const loadedStopWords = KeywordIndex.deserialize(onlyStopWords.serialize());

      // Assess
      expect(loadedEmpty.size).toBe(0);
      expect(loadedEmpty.search('anything', 10)).toEqual([]);
      expect(loadedStopWords.has('a')).toBe(true);
      expect(loadedStopWords.search('rotate keys', 10)).toEqual(onlyStopWords.search('rotate keys', 10));
    });

    it('writes the same documents to the same bytes, however they were added', () => {
      // Prepare
      const once = indexOf(CORPUS);
      const churned = indexOf(CORPUS);
      churned.upsert({ id: 'z', text: 'temporary words' });
      churned.remove('z');

      // Act and assess
      expect(KeywordIndex.deserialize(churned.serialize()).search('rotate keys menu', 10)).toEqual(
        once.search('rotate keys menu', 10),
      );
      expect(once.serialize().byteLength).toBeLessThan(400);
    });
  });
});
