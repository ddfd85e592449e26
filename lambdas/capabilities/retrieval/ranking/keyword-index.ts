import { type AnalysisLanguage, analyze, DEFAULT_ANALYSIS_LANGUAGE, isAnalysisLanguage } from './text-analysis.ts';
import { selectBest } from './top-k.ts';
import { resized } from './typed-arrays.ts';

/*
 * KEYWORD search: an incremental inverted index scored with BM25, exactly
 *   idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *   score(d) = Σ over the query's distinct terms t of idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |d| / avgdl))
 * with k1 = 1.5, b = 0.75, |d| the number of terms `analyze` gives for d (repeats counted), avgdl = Σ|d| / N over
 * the N documents held; hits are then divided by the query's top score (the best hit scores 1).
 *
 * Written here rather than taken from a library: MiniSearch 7 and Orama 3 were measured, and neither fits. At
 * 100,000 short documents a query with a common term took MiniSearch 200–440 ms at p95 (it builds a result
 * object per matching document) against 5–9 ms here, and loading a snapshot took it 5 s; Orama was slower
 * still and divides tf by the document length, which is not BM25. MiniSearch also needed four corrections to
 * score BM25 (its BM25+ δ, a length counted in distinct terms, a running-mean avgdl, a multiplier by the number
 * of matched terms), which its own loader cannot keep.
 *
 * Every input of a score (tf, df, N, |d|, Σ|d|) is an integer, and a document's terms are summed in query order,
 * so an index built incrementally, one rebuilt at once from the same documents and one serialised and loaded
 * again score identically, to the bit.
 */

export const BM25_K1 = 1.5;
export const BM25_B = 0.75;

export interface KeywordDocument {
  readonly id: string;
  /** The text to index: whatever concatenation of the record's fields the caller wants searchable. */
  readonly text: string;
}

export interface KeywordHit {
  readonly id: string;
  /** BM25 divided by the query's top score: 1 for the best hit. */
  readonly score: number;
  /** BM25 as computed. */
  readonly raw: number;
}

/** One term's documents (by slot) and the term's frequency in each; unordered. */
interface PostingList {
  slots: Int32Array;
  frequencies: Int32Array;
  length: number;
}

interface ScoredSlot {
  readonly id: string;
  readonly raw: number;
}

const ranksBefore = (a: ScoredSlot, b: ScoredSlot): boolean => a.raw > b.raw || (a.raw === b.raw && a.id < b.id);

const MAGIC = 0x4d484b49; // "MHKI"
const FORMAT_VERSION = 1;
const HEADER_BYTES = 12;
const INITIAL_SLOTS = 64;

export class KeywordIndex {
  readonly language: AnalysisLanguage;
  readonly #termIds = new Map<string, number>();
  readonly #terms: string[] = [];
  readonly #postings: PostingList[] = [];
  readonly #slotOf = new Map<string, number>();
  readonly #idOfSlot: (string | undefined)[] = [];
  /** Each document's distinct term ids, so that removing it touches only its own posting lists. */
  readonly #termsOfSlot: (Int32Array | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  #lengths = new Int32Array(INITIAL_SLOTS);
  /** Scratch space for a query's scores by slot; all zeros between queries. */
  #scores = new Float64Array(INITIAL_SLOTS);
  #totalLength = 0;

  constructor(options: { readonly language?: AnalysisLanguage } = {}) {
    this.language = options.language ?? DEFAULT_ANALYSIS_LANGUAGE;
  }

  get size(): number {
    return this.#slotOf.size;
  }

  has(id: string): boolean {
    return this.#slotOf.has(id);
  }

  /** Adds the document, or replaces the one with its id. */
  upsert(document: KeywordDocument): void {
    this.remove(document.id);
    const frequencies = new Map<number, number>();
    const terms = analyze(document.text, this.language);
    for (const term of terms) {
      const termId = this.#termIdOf(term);
      frequencies.set(termId, (frequencies.get(termId) ?? 0) + 1);
    }
    const slot = this.#takeSlot(document.id, terms.length);
    for (const [termId, frequency] of frequencies) this.#post(termId, slot, frequency);
    this.#termsOfSlot[slot] = Int32Array.from(frequencies.keys());
  }

  /** False when the index did not hold the document. */
  remove(id: string): boolean {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    for (const termId of this.#termsOfSlot[slot] ?? []) {
      const list = this.#postings[termId];
      if (list === undefined) continue;
      const position = list.slots.subarray(0, list.length).indexOf(slot);
      if (position < 0) continue;
      // Postings are unordered: the last one takes the removed one's place.
      list.length -= 1;
      list.slots[position] = list.slots[list.length] ?? 0;
      list.frequencies[position] = list.frequencies[list.length] ?? 0;
    }
    this.#totalLength -= this.#lengths[slot] ?? 0;
    this.#lengths[slot] = 0;
    this.#termsOfSlot[slot] = undefined;
    this.#idOfSlot[slot] = undefined;
    this.#slotOf.delete(id);
    this.#freeSlots.push(slot);
    return true;
  }

  /**
   * The `limit` best hits, best first; equal scores by id. With `keep`, the best of the documents it accepts (a
   * filter chosen before the top is selected, so a filtered search costs n · log `limit`, not a sort of every
   * match); scores are still divided by the query's top score over every document, so a kept hit may score below 1.
   */
  search(query: string, limit: number, keep?: (id: string) => boolean): KeywordHit[] {
    if (limit <= 0 || this.size === 0) return [];
    const count = this.size;
    const averageLength = this.#totalLength / count;
    const scores = this.#scores;
    const touched: number[] = [];
    for (const term of new Set(analyze(query, this.language))) {
      const termId = this.#termIds.get(term);
      const list = termId === undefined ? undefined : this.#postings[termId];
      if (list === undefined || list.length === 0) continue;
      const idf = Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5));
      for (let position = 0; position < list.length; position += 1) {
        const slot = list.slots[position] ?? 0;
        const frequency = list.frequencies[position] ?? 0;
        const length = this.#lengths[slot] ?? 0;
        // Every contribution is positive, so a score still at 0 is a slot this query has not touched yet.
        if (scores[slot] === 0) touched.push(slot);
        scores[slot] =
          (scores[slot] ?? 0) +
          (idf * frequency * (BM25_K1 + 1)) / (frequency + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength));
      }
    }
    let top = 0;
    const scored: ScoredSlot[] = [];
    for (const slot of touched) {
      const raw = scores[slot] ?? 0;
      scores[slot] = 0;
      if (raw > top) top = raw;
      const id = this.#idOfSlot[slot] ?? '';
      if (keep === undefined || keep(id)) scored.push({ id, raw });
    }
    const best = selectBest(scored, limit, ranksBefore);
    return best.map(({ id, raw }) => ({ id, score: top > 0 ? raw / top : 0, raw }));
  }

  /*
   * Serialised form, little-endian: a 12-byte header (magic, version, the 2-letter language, the byte length of
   * the names), the names as UTF-8 JSON {ids, terms} — documents renumbered 0…N−1, terms with postings only —
   * then unsigned LEB128 varints: each document's length, then per term its posting count and, by ascending
   * document number, the gap to the previous document number and the term's frequency there.
   */
  serialize(): Uint8Array {
    const liveSlots = [...this.#slotOf.values()].sort((a, b) => a - b);
    const numberOfSlot = new Map(liveSlots.map((slot, number) => [slot, number]));
    const termIds = this.#terms
      .map((_, termId) => termId)
      .filter((termId) => (this.#postings[termId]?.length ?? 0) > 0);
    const names = new TextEncoder().encode(
      JSON.stringify({
        ids: liveSlots.map((slot) => this.#idOfSlot[slot]),
        terms: termIds.map((termId) => this.#terms[termId]),
      }),
    );
    const writer = new VarintWriter(HEADER_BYTES + names.byteLength);
    for (const slot of liveSlots) writer.write(this.#lengths[slot] ?? 0);
    for (const termId of termIds) {
      const list = this.#postings[termId] as PostingList;
      const postings = Array.from({ length: list.length }, (_, position) => ({
        number: numberOfSlot.get(list.slots[position] ?? 0) ?? 0,
        frequency: list.frequencies[position] ?? 0,
      })).sort((a, b) => a.number - b.number);
      writer.write(postings.length);
      let previous = 0;
      for (const { number, frequency } of postings) {
        writer.write(number - previous);
        writer.write(frequency);
        previous = number;
      }
    }
    const bytes = writer.bytes();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    view.setUint32(0, MAGIC, false);
    view.setUint8(4, FORMAT_VERSION);
    view.setUint8(5, this.language.charCodeAt(0));
    view.setUint8(6, this.language.charCodeAt(1));
    view.setUint32(8, names.byteLength, true);
    bytes.set(names, HEADER_BYTES);
    return bytes;
  }

  static deserialize(bytes: Uint8Array): KeywordIndex {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const corrupt = () => new RangeError('Not a serialised keyword index of a known version');
    if (bytes.byteLength < HEADER_BYTES || view.getUint32(0, false) !== MAGIC || view.getUint8(4) !== FORMAT_VERSION)
      throw corrupt();
    const language = String.fromCharCode(view.getUint8(5), view.getUint8(6));
    const namesLength = view.getUint32(8, true);
    if (!isAnalysisLanguage(language) || HEADER_BYTES + namesLength > bytes.byteLength) throw corrupt();
    const names: unknown = JSON.parse(
      new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + namesLength)),
    );
    if (!isNames(names)) throw corrupt();

    const index = new KeywordIndex({ language });
    const reader = new VarintReader(bytes, HEADER_BYTES + namesLength, corrupt);
    const termsOfSlot: number[][] = names.ids.map(() => []);
    for (const id of names.ids) index.#takeSlot(id, reader.read());
    if (index.size !== names.ids.length) throw corrupt();
    for (const term of names.terms) {
      const termId = index.#termIdOf(term);
      const count = reader.read();
      const list: PostingList = { slots: new Int32Array(count), frequencies: new Int32Array(count), length: count };
      let slot = 0;
      for (let position = 0; position < count; position += 1) {
        slot += reader.read();
        const terms = termsOfSlot[slot];
        if (terms === undefined) throw corrupt();
        list.slots[position] = slot;
        list.frequencies[position] = reader.read();
        terms.push(termId);
      }
      index.#postings[termId] = list;
    }
    if (!reader.atEnd()) throw corrupt();
    for (const [slot, terms] of termsOfSlot.entries()) index.#termsOfSlot[slot] = Int32Array.from(terms);
    return index;
  }

  #termIdOf(term: string): number {
    let termId = this.#termIds.get(term);
    if (termId === undefined) {
      termId = this.#terms.length;
      this.#termIds.set(term, termId);
      this.#terms.push(term);
      this.#postings.push({ slots: new Int32Array(2), frequencies: new Int32Array(2), length: 0 });
    }
    return termId;
  }

  #takeSlot(id: string, length: number): number {
    const slot = this.#freeSlots.pop() ?? this.#idOfSlot.length;
    if (slot >= this.#lengths.length) {
      const lengths = new Int32Array(this.#lengths.length * 2);
      lengths.set(this.#lengths);
      this.#lengths = lengths;
      this.#scores = new Float64Array(lengths.length);
    }
    this.#idOfSlot[slot] = id;
    this.#slotOf.set(id, slot);
    this.#lengths[slot] = length;
    this.#totalLength += length;
    return slot;
  }

  #post(termId: number, slot: number, frequency: number): void {
    const list = this.#postings[termId] as PostingList;
    if (list.length === list.slots.length) {
      const slots = new Int32Array(list.length * 2);
      slots.set(list.slots);
      const frequencies = new Int32Array(list.length * 2);
      frequencies.set(list.frequencies);
      list.slots = slots;
      list.frequencies = frequencies;
    }
    list.slots[list.length] = slot;
    list.frequencies[list.length] = frequency;
    list.length += 1;
  }
}

const isNames = (value: unknown): value is { ids: string[]; terms: string[] } => {
  if (typeof value !== 'object' || value === null) return false;
  const { ids, terms } = value as Record<string, unknown>;
  const strings = (list: unknown) => Array.isArray(list) && list.every((item) => typeof item === 'string');
  const distinct = (list: unknown) => new Set(list as string[]).size === (list as string[]).length;
  return strings(ids) && strings(terms) && distinct(ids) && distinct(terms);
};

class VarintWriter {
  #bytes: Uint8Array;
  #length: number;

  constructor(offset: number) {
    this.#bytes = new Uint8Array(Math.max(1024, offset * 2));
    this.#length = offset;
  }

  write(value: number): void {
    if (this.#length + 5 > this.#bytes.length) {
      this.#bytes = resized(this.#bytes, this.#bytes.length * 2);
    }
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.#bytes[this.#length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.#bytes[this.#length++] = rest;
  }

  bytes(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

class VarintReader {
  readonly #bytes: Uint8Array;
  readonly #corrupt: () => Error;
  #offset: number;

  constructor(bytes: Uint8Array, offset: number, corrupt: () => Error) {
    this.#bytes = bytes;
    this.#offset = offset;
    this.#corrupt = corrupt;
  }

  read(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.#bytes[this.#offset++];
      if (byte === undefined) throw this.#corrupt();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw this.#corrupt();
  }

  atEnd(): boolean {
    return this.#offset === this.#bytes.length;
  }
}
