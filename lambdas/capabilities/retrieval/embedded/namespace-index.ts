import type { IndexChange, SearchDocument } from '../../../kernel/search/search-document.ts';
import { idOfChange, revisionOfChange } from '../../../kernel/search/search-document.ts';
import {
  type Candidate,
  type CandidateQuery,
  passesSearchFilter,
  type SearchFilter,
} from '../../../kernel/search/search-index.port.ts';
import { TAG_EDGE } from '../indexing/search-documents.ts';
import { selectBest } from '../ranking/top-k.ts';
import type { IndexSnapshot } from './index-codec.ts';

/**
 * The inverted index the keyword leg reads: the `limit` best raw BM25 scores, best first, only over ids `keep`
 * accepts (every id without it).
 */
export interface KeywordLeg {
  add(id: string, text: string): void;
  remove(id: string): void;
  search(
    query: string,
    limit: number,
    keep: ((id: string) => boolean) | undefined,
  ): readonly { readonly id: string; readonly raw: number }[];
}

/** The vectors the semantic leg reads: the `limit` best cosines, best first, only over ids `keep` accepts. */
export interface VectorLeg {
  set(id: string, vector: readonly number[]): void;
  remove(id: string): void;
  nearest(
    vector: readonly number[],
    limit: number,
    keep: ((id: string) => boolean) | undefined,
  ): readonly { readonly id: string; readonly cosine: number }[];
}

export interface NamespaceIndexParts {
  readonly keyword: KeywordLeg;
  /** Vectors of one embedding model: documents embedded by another are not searched semantically. */
  readonly vectors: VectorLeg;
  readonly model: string;
}

const edgeKey = (type: string, value: string): string => `${type}\u0000${value}`;

/**
 * One namespace's index in memory, as of a log sequence: every document, the removals (so a late, older upsert
 * stays out), the keyword and vector legs, tag and edge postings, and the documents newest first. Changes are
 * applied revision-aware; the same changes in any order leave the same index.
 */
export class NamespaceIndex {
  sequence: number;
  readonly #parts: NamespaceIndexParts;
  readonly #documents = new Map<string, SearchDocument>();
  readonly #removed = new Map<string, number>();
  readonly #edges = new Map<string, Set<string>>();
  /** Ids newest first by `updatedAt` (then id), kept sorted as documents come and go. */
  readonly #newest: string[] = [];
  /** While a snapshot is loaded: documents are listed unsorted, and sorted once at the end. */
  #loading = false;

  constructor(parts: NamespaceIndexParts, sequence = 0) {
    this.#parts = parts;
    this.sequence = sequence;
  }

  static fromSnapshot(parts: NamespaceIndexParts, sequence: number, snapshot: IndexSnapshot): NamespaceIndex {
    const index = new NamespaceIndex(parts, sequence);
    // Placing each document in the newest-first list as it comes moves the list's tail every time (quadratic:
    // 5 s of CPU at 100,000): the loaded documents are listed as they come and sorted once.
    index.#loading = true;
    for (const document of snapshot.documents) index.apply({ type: 'upsert', document });
    index.#loading = false;
    index.#newest.sort((a, b) => index.#newer(a, b));
    for (const [id, revision] of snapshot.removed) index.apply({ type: 'remove', id, revision });
    return index;
  }

  get size(): number {
    return this.#documents.size;
  }

  snapshot(): IndexSnapshot {
    return { documents: [...this.#documents.values()], removed: [...this.#removed.entries()] };
  }

  /**
   * Applies one change unless the index knows better: an upsert of revision n only over an older document and
   * a removal older than n; a removal as of revision n over a document of revision n or older (the record ended
   * at n: deleted, or expired at the revision it had) unless a removal as of n or later is known already.
   */
  apply(change: IndexChange): boolean {
    const id = idOfChange(change);
    const revision = revisionOfChange(change);
    const document = this.#documents.get(id)?.revision ?? 0;
    const removed = this.#removed.get(id) ?? 0;
    const newer =
      change.type === 'upsert' ? revision > document && revision > removed : revision >= document && revision > removed;
    if (!newer) return false;
    this.#forget(id);
    if (change.type === 'remove') {
      this.#removed.set(id, change.revision);
      return true;
    }
    this.#removed.delete(id);
    this.#add(change.document);
    return true;
  }

  candidates(query: CandidateQuery): Candidate[] {
    const keep = this.#filterOf(query.filter);
    // The legs hold the documents this index holds: with no filter, they need not ask about each id.
    const legKeep = Object.values(query.filter).some((value) => value !== undefined) ? keep : undefined;
    const found = new Map<
      string,
      { keyword?: number; semantic?: number; recency?: number; shared?: Record<string, string[]> }
    >();
    const at = (id: string) => {
      const entry = found.get(id) ?? {};
      found.set(id, entry);
      return entry;
    };
    if (query.keyword) {
      for (const hit of this.#parts.keyword.search(query.keyword.text, query.keyword.limit, legKeep))
        at(hit.id).keyword = hit.raw;
    }
    if (query.semantic && query.semantic.model === this.#parts.model) {
      for (const hit of this.#parts.vectors.nearest(query.semantic.vector, query.semantic.limit, legKeep))
        at(hit.id).semantic = hit.cosine;
    }
    if (query.recent) {
      let rank = 0;
      for (const id of this.#newest) {
        if (rank >= query.recent.limit) break;
        if (!keep(id)) continue;
        at(id).recency = rank;
        rank += 1;
      }
    }
    if (query.related) {
      for (const [id, shared] of this.#related(query.related.edges, query.related.limit, keep)) at(id).shared = shared;
    }
    return [...found.entries()].map(([id, scores]) => {
      const { text: _text, ...document } = this.#documents.get(id) as SearchDocument;
      return { document, ...scores };
    });
  }

  /**
   * Documents sharing most edge values with `edges` first, then the newest, then by id. Counted per document
   * first and only the `limit` best given their shared values: a common tag can be on most of a namespace.
   */
  #related(
    edges: Readonly<Record<string, readonly string[]>>,
    limit: number,
    keep: (id: string) => boolean,
  ): [string, Record<string, string[]>][] {
    const postings: { readonly type: string; readonly value: string; readonly ids: ReadonlySet<string> }[] = [];
    const counts = new Map<string, number>();
    for (const [type, values] of Object.entries(edges)) {
      for (const value of new Set(values)) {
        const ids = this.#edges.get(edgeKey(type, value));
        if (!ids) continue;
        postings.push({ type, value, ids });
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    }
    const kept: { readonly id: string; readonly count: number }[] = [];
    for (const [id, count] of counts) if (keep(id)) kept.push({ id, count });
    const best = selectBest(
      kept,
      limit,
      (a, b) => a.count > b.count || (a.count === b.count && this.#newer(a.id, b.id) < 0),
    );
    return best.map(({ id }) => {
      const byType: Record<string, string[]> = {};
      for (const { type, value, ids } of postings) if (ids.has(id)) byType[type] = [...(byType[type] ?? []), value];
      return [id, byType];
    });
  }

  #filterOf(filter: SearchFilter): (id: string) => boolean {
    return (id) => {
      const document = this.#documents.get(id);
      return document !== undefined && passesSearchFilter(document, filter);
    };
  }

  /** Negative when `a` sorts before `b` newest first: later `updatedAt`, then the greater id. */
  #newer(a: string, b: string): number {
    const updatedA = this.#documents.get(a)?.updatedAt ?? '';
    const updatedB = this.#documents.get(b)?.updatedAt ?? '';
    if (updatedA !== updatedB) return updatedA > updatedB ? -1 : 1;
    return a === b ? 0 : a > b ? -1 : 1;
  }

  #add(document: SearchDocument): void {
    this.#documents.set(document.id, document);
    this.#parts.keyword.add(document.id, document.text);
    if (document.vector && document.model === this.#parts.model) this.#parts.vectors.set(document.id, document.vector);
    for (const [type, values] of this.#edgesOf(document)) {
      for (const value of values) {
        const key = edgeKey(type, value);
        const ids = this.#edges.get(key) ?? new Set<string>();
        ids.add(document.id);
        this.#edges.set(key, ids);
      }
    }
    if (this.#loading) this.#newest.push(document.id);
    else this.#newest.splice(this.#positionInNewest(document.id), 0, document.id);
  }

  #forget(id: string): void {
    const document = this.#documents.get(id);
    if (!document) return;
    // Unsorted while loading (a snapshot names each id once, so this is for a damaged one only).
    this.#newest.splice(this.#loading ? this.#newest.indexOf(id) : this.#positionInNewest(id), 1);
    for (const [type, values] of this.#edgesOf(document)) {
      for (const value of values) {
        const key = edgeKey(type, value);
        const ids = this.#edges.get(key);
        ids?.delete(id);
        if (ids?.size === 0) this.#edges.delete(key);
      }
    }
    this.#parts.keyword.remove(id);
    this.#parts.vectors.remove(id);
    this.#documents.delete(id);
  }

  *#edgesOf(document: SearchDocument): Iterable<[string, readonly string[]]> {
    yield [TAG_EDGE, document.tags];
    yield* Object.entries(document.edges);
  }

  /** Where `id` is or would go in the newest-first list (binary search; the document must be in the map). */
  #positionInNewest(id: string): number {
    let low = 0;
    let high = this.#newest.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#newer(this.#newest[middle] as string, id) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
