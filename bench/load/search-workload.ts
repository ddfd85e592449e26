/**
 * The search workload: one principal's namespace filled with the retrieval-quality set's memories as notes (through
 * `POST /v1/notes`, so every record is encrypted in the engine and indexed by the search-index consumer), searches
 * of every strategy with the set's queries, the commit → searchable probe, and the notes mix with a share of
 * searches against that namespace.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SEARCH_STRATEGIES, type SearchStrategy } from '../../lambdas/capabilities/retrieval/search.schema.ts';
import { buildRetrievalSet } from '../retrieval-quality/dataset.ts';
import { seededRandom } from '../stats.ts';
import { forEachConcurrently } from './concurrently.ts';
import { type HttpClient, type HttpResponse, outcomeOf } from './http-client.ts';
import type { PrincipalIdentity } from './identities.ts';
import type { SeedResult, SessionWorkload } from './load-session.ts';
import { NOTE_OPERATIONS, type NoteOperation, type NotesWorkload } from './notes-workload.ts';
import type { Outcome } from './open-loop-driver.ts';

export { SEARCH_STRATEGIES, type SearchStrategy };

/** The API's operationId of `POST /v1/search`, which is also its key in the server's cost report. */
export const SEARCH_OPERATION = 'search';
export const SEARCH_MIX_OPERATIONS = [...NOTE_OPERATIONS, SEARCH_OPERATION] as const;
export type SearchMixOperation = (typeof SEARCH_MIX_OPERATIONS)[number];

/** What a search response showed (`Outcome.observed`): the strategy's position in SEARCH_STRATEGIES, and the hits. */
export const SEARCHED_STRATEGY = 'strategy';
export const SEARCH_HITS = 'hits';

export interface CorpusNote {
  readonly text: string;
  readonly tags: readonly string[];
}

export interface SearchCorpus {
  /** In the order they are written: any prefix is a sample of the whole set (the set is shuffled). */
  readonly notes: readonly CorpusNote[];
  /** The labelled set's query texts: questions of five kinds, worded as an agent asks them. */
  readonly queries: readonly string[];
}

/** The retrieval-quality set's smallest size: its labelled part needs about 2,750 memories. */
const SMALLEST_SET = 10_000;

/** At least `size` notes from the retrieval-quality set (beliefs written as notes too), and its queries. */
export const searchCorpus = (size: number, seed?: number): SearchCorpus => {
  const set = buildRetrievalSet({ memories: Math.max(SMALLEST_SET, size), ...(seed !== undefined && { seed }) });
  return {
    notes: set.memories.map((memory) => ({ text: memory.text, tags: memory.tags })),
    queries: set.queries.map((query) => query.text),
  };
};

export interface GrowthSegment {
  /** Notes in the namespace once this segment is written. */
  readonly size: number;
  /** Notes this segment adds. */
  readonly adds: number;
  /** Index of its first note in the corpus. */
  readonly from: number;
}

/** The namespace grows through each size in turn: what each step writes. Sizes must ascend. */
export const growthSegments = (sizes: readonly number[]): GrowthSegment[] =>
  sizes.map((size, index) => {
    const from = sizes[index - 1] ?? 0;
    if (size <= from) throw new RangeError('Growth sizes must ascend');
    return { size, adds: size - from, from };
  });

/** The `count` tags the most notes carry, most first (ties by name), for the tag filters. */
export const frequentTags = (notes: readonly CorpusNote[], count: number): string[] => {
  const counts = new Map<string, number>();
  for (const note of notes) for (const tag of note.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return [...counts]
    .sort(([tagA, countA], [tagB, countB]) => countB - countA || (tagA < tagB ? -1 : 1))
    .slice(0, count)
    .map(([tag]) => tag);
};

export interface SearchBody {
  readonly query: string;
  readonly strategy: SearchStrategy;
  readonly k: number;
  readonly filters?: { readonly tags?: readonly string[]; readonly since?: string };
}

export interface SearchPlanOptions {
  readonly queries: readonly string[];
  /** Tags a tag filter picks from. */
  readonly tags: readonly string[];
  /** The instant a `since` filter names. */
  readonly since: string;
  /** Share of searches with a filter: half of them a tag, half `since`. */
  readonly filteredShare: number;
  readonly k: number;
  readonly seed: number;
}

/** `count` search bodies of `strategy`, each with a query drawn from the set, a share of them filtered. */
export const planSearches = (strategy: SearchStrategy, count: number, options: SearchPlanOptions): SearchBody[] => {
  if (options.queries.length === 0) throw new RangeError('No queries to search with');
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: count }, (): SearchBody => {
    const body = { query: pick(options.queries), strategy, k: options.k };
    const roll = random();
    if (roll < options.filteredShare / 2 && options.tags.length > 0)
      return { ...body, filters: { tags: [pick(options.tags)] } };
    if (roll < options.filteredShare) return { ...body, filters: { since: options.since } };
    return body;
  });
};

export const sendSearch = (client: HttpClient, caller: PrincipalIdentity, body: SearchBody): Promise<HttpResponse> =>
  client.send({ method: 'POST', path: '/v1/search', headers: { authorization: caller.authorization }, body });

/** The ids a search response listed, best first (none when it is not a 200 search response). */
export const hitIdsOf = (response: HttpResponse): string[] => {
  if (response.status !== 200) return [];
  try {
    const { hits } = JSON.parse(response.body) as { hits?: { id?: unknown }[] };
    return (hits ?? []).flatMap((hit) => (typeof hit.id === 'string' ? [hit.id] : []));
  } catch {
    return [];
  }
};

/** Creates a note and returns its id (undefined unless the answer was a 201 naming one). */
export const createNote = async (
  client: HttpClient,
  author: PrincipalIdentity,
  note: CorpusNote,
): Promise<string | undefined> => {
  const response = await client.send({
    method: 'POST',
    path: '/v1/notes',
    headers: { authorization: author.authorization },
    body: { text: note.text, tags: note.tags },
  });
  const location = response.headers.location;
  const id = (Array.isArray(location) ? location[0] : location)?.split('/').pop()?.split('?')[0];
  return response.status === 201 ? id : undefined;
};

/** Writes `notes` into the author's namespace, `concurrency` creates at a time; how many failed. */
export const seedNotes = async (
  client: HttpClient,
  author: PrincipalIdentity,
  notes: readonly CorpusNote[],
  options: {
    concurrency: number;
    onProgress?: (written: number) => void;
    progressEvery?: number;
    /** `performance.now()` after which no more creates are sent. */
    deadline?: number;
  },
): Promise<{ written: number; failures: number }> => {
  let written = 0;
  let failures = 0;
  const every = options.progressEvery ?? 5000;
  await forEachConcurrently(notes, options.concurrency, async (note) => {
    if (options.deadline !== undefined && performance.now() > options.deadline) return;
    if ((await createNote(client, author, note)) === undefined) failures += 1;
    written += 1;
    if (written % every === 0) options.onProgress?.(written);
  });
  return { written, failures };
};

/** A word no note of the set holds and no analyser splits or stems away: letters only, unlike any English word. */
export const uniqueTerm = (random: () => number): string =>
  `zq${Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('')}x`;

export interface SearchableWait {
  /** Commit (the create's answer) → the first keyword search that listed the note, ms; undefined on timeout. */
  lagMs: number | undefined;
  polls: number;
}

/**
 * Creates a note holding a unique term, then searches for it by keyword every `intervalMs` until it is listed.
 * The lag runs from the create's answer (the commit is just before it) to the answer of the first search that
 * listed it, so it resolves to about one poll.
 */
export const probeIndexLag = async (
  client: HttpClient,
  author: PrincipalIdentity,
  random: () => number,
  options: { intervalMs: number; timeoutMs: number },
): Promise<SearchableWait> => {
  const term = uniqueTerm(random);
  const id = await createNote(client, author, { text: `Index lag probe: the code word is ${term}.`, tags: [] });
  if (id === undefined) throw new Error('The index lag probe could not create its note');
  const committed = performance.now();
  let polls = 0;
  while (performance.now() - committed < options.timeoutMs) {
    polls += 1;
    const response = await sendSearch(client, author, { query: term, strategy: 'keyword', k: 1 });
    if (hitIdsOf(response).includes(id)) return { lagMs: performance.now() - committed, polls };
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
  return { lagMs: undefined, polls };
};

/** Resident memory of a process (Linux /proc), bytes: now and the peak. */
export interface ProcessMemory {
  rssBytes: number;
  peakRssBytes: number;
}

/** VmRSS and VmHWM of a `/proc/{pid}/status` text; undefined when either is missing. */
export const parseProcStatus = (status: string): ProcessMemory | undefined => {
  const kilobytes = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  };
  const rssBytes = kilobytes('VmRSS');
  const peakRssBytes = kilobytes('VmHWM');
  return rssBytes === undefined || peakRssBytes === undefined ? undefined : { rssBytes, peakRssBytes };
};

export const processMemory = async (pid: number | undefined): Promise<ProcessMemory | undefined> => {
  if (pid === undefined) return undefined;
  try {
    return parseProcStatus(await readFile(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
};

/**
 * The notes mix with a share of searches: each arrival is a search by the searcher (in its own, large namespace,
 * the strategies taken in turn, the queries from `plan`) with probability `searchShare`, otherwise the notes
 * workload's next operation for its own principals.
 */
export class SearchMixWorkload implements SessionWorkload<SearchMixOperation> {
  readonly operations = SEARCH_MIX_OPERATIONS;
  readonly #notes: NotesWorkload;
  readonly #searcher: PrincipalIdentity;
  readonly #plan: readonly SearchBody[];
  readonly #searchShare: number;
  readonly #random: () => number;
  #next = 0;

  constructor(options: {
    notes: NotesWorkload;
    searcher: PrincipalIdentity;
    /** Searches in the order they are sent, cycled. */
    plan: readonly SearchBody[];
    searchShare: number;
    seed: number;
  }) {
    if (options.plan.length === 0) throw new RangeError('No searches planned');
    this.#notes = options.notes;
    this.#searcher = options.searcher;
    this.#plan = options.plan;
    this.#searchShare = options.searchShare;
    this.#random = seededRandom(options.seed);
  }

  /** The notes workload's principals get their notes; the searcher's namespace is filled beforehand. */
  seed(client: HttpClient): Promise<SeedResult> {
    return this.#notes.seed(client);
  }

  issue(client: HttpClient): Promise<Outcome> {
    return this.#random() < this.#searchShare ? this.#search(client) : this.#notes.issue(client);
  }

  issueOperation(client: HttpClient, operation: SearchMixOperation): Promise<Outcome> {
    return operation === SEARCH_OPERATION
      ? this.#search(client)
      : this.#notes.issueOperation(client, operation as NoteOperation);
  }

  async #search(client: HttpClient): Promise<Outcome> {
    const body = this.#plan[this.#next % this.#plan.length] as SearchBody;
    this.#next += 1;
    const response = await sendSearch(client, this.#searcher, body);
    return {
      ...outcomeOf(SEARCH_OPERATION, response),
      observed: {
        [SEARCHED_STRATEGY]: SEARCH_STRATEGIES.indexOf(body.strategy),
        [SEARCH_HITS]: hitIdsOf(response).length,
      },
    };
  }
}

/** The plans of every strategy interleaved, so that a stream of searches takes the strategies in turn. */
export const interleave = <T>(lists: readonly (readonly T[])[]): T[] => {
  const longest = Math.max(0, ...lists.map((list) => list.length));
  const out: T[] = [];
  for (let index = 0; index < longest; index++)
    for (const list of lists) if (index < list.length) out.push(list[index] as T);
  return out;
};

/** Where the embedded engine keeps its journal under a server's data folder (lambdas/local/embedded-dynamodb.ts). */
const ENGINE_JOURNAL = join('dynamodb', 'journal.jsonl');
const DEAD_LETTER_ITEM = /"pk":\{"S":"dead-letters"\}/;
const DEAD_LETTER_KEY = /"sk":\{"S":"([^"#]+)#([^"]+)"\}/;

/**
 * Events each consumer gave up on (its dead letters), read from the engine's journal in a stopped server's data
 * folder: local mode has no API for them, and a search-index dead letter is a note the index never got.
 */
export const countDeadLetters = async (dataDir: string): Promise<Record<string, number>> => {
  const seen = new Map<string, Set<string>>();
  try {
    const lines = createInterface({
      input: createReadStream(join(dataDir, ENGINE_JOURNAL), 'utf8'),
      crlfDelay: Infinity,
    });
    for await (const line of lines) {
      if (!line.includes('dead-letters') || !DEAD_LETTER_ITEM.test(line) || line.includes('DeleteItem')) continue;
      const match = DEAD_LETTER_KEY.exec(line);
      if (!match?.[1] || !match[2]) continue;
      const events = seen.get(match[1]) ?? new Set<string>();
      events.add(match[2]);
      seen.set(match[1], events);
    }
  } catch {
    return {};
  }
  return Object.fromEntries([...seen].map(([consumer, events]) => [consumer, events.size]));
};
