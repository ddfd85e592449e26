/**
 * The notes workload: principals spread over a few tenants, each seeded with one or two notes, then a
 * weighted mix of create / get / list / patch. Each principal has at most one patch in flight and patches
 * with the ETag it last received from a create or patch, so a 412 can only mean a bug.
 */
import type { WorkloadOptions } from '../bench-options.ts';
import { seededRandom } from '../stats.ts';
import { forEachConcurrently } from './concurrently.ts';
import { type HttpClient, type HttpResponse, outcomeOf } from './http-client.ts';
import type { PrincipalIdentity } from './identities.ts';
import type { SeedResult, SessionWorkload } from './load-session.ts';
import type { Outcome } from './open-loop-driver.ts';

/** The API's operationIds, which are also the keys of the server's cost report. */
export const NOTE_OPERATIONS = ['createNote', 'getNote', 'listNotes', 'updateNote'] as const;
export type NoteOperation = (typeof NOTE_OPERATIONS)[number];

export const OPERATION_LABELS: Record<NoteOperation, string> = {
  createNote: 'create — POST /v1/notes',
  getNote: 'get — GET /v1/notes/{id}',
  listNotes: 'list — GET /v1/notes?limit=20',
  updateNote: 'patch — PATCH /v1/notes/{id}',
};

export const OPERATION_KIND: Record<NoteOperation, 'read' | 'write'> = {
  createNote: 'write',
  getNote: 'read',
  listNotes: 'read',
  updateNote: 'write',
};

/** What a list response showed (`Outcome.observed`): the notes on the page. */
export const LISTED_ITEMS = 'listedItems';

interface NoteRef {
  id: string;
  etag: string;
}

interface Principal extends PrincipalIdentity {
  notes: NoteRef[];
  patching: boolean;
}

const WORDS = (
  'agent plan task memory context tool result review draft branch deploy retry cache index query ' +
  'summary decision owner risk metric latency budget schema event handoff note learn observe verify'
).split(' ');
const TAGS = ['plan', 'todo', 'decision', 'risk', 'handoff', 'context', 'review', 'ops'];

export class NotesWorkload implements SessionWorkload<NoteOperation> {
  readonly operations = NOTE_OPERATIONS;
  readonly principals: readonly Principal[];
  /** Patches turned into gets because every principal tried had a patch in flight. */
  patchFallbacks = 0;
  readonly #random: () => number;
  readonly #options: WorkloadOptions;
  readonly #cumulativeMix: [NoteOperation, number][];

  constructor(identities: readonly PrincipalIdentity[], options: WorkloadOptions, seedOffset = 0) {
    this.principals = identities.map((identity) => ({ ...identity, notes: [], patching: false }));
    this.#options = options;
    this.#random = seededRandom(options.seed + seedOffset);
    const entries: [NoteOperation, number][] = [
      ['createNote', options.mix.create],
      ['getNote', options.mix.get],
      ['listNotes', options.mix.list],
      ['updateNote', options.mix.patch],
    ];
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let running = 0;
    this.#cumulativeMix = entries.map(([operation, weight]) => {
      running += weight / total;
      return [operation, running];
    });
  }

  /** Gives every principal one or two notes, a few requests at a time. */
  async seed(client: HttpClient, concurrency = 8): Promise<SeedResult> {
    const jobs: Principal[] = [];
    for (const principal of this.principals) {
      jobs.push(principal);
      if (this.#random() < 0.5) jobs.push(principal);
    }
    let failures = 0;
    await forEachConcurrently(jobs, concurrency, async (principal) => {
      const outcome = await this.#create(client, principal);
      if (outcome.status !== 201) failures += 1;
    });
    if (this.principals.some((principal) => principal.notes.length === 0))
      throw new Error(`Seeding failed: ${failures} of ${jobs.length} creates did not return 201`);
    return {
      requests: { createNote: jobs.length },
      description: `${this.principals.length} principals, ${jobs.length} seed notes`,
    };
  }

  /** Picks the next operation by weight and sends it. */
  issue(client: HttpClient): Promise<Outcome> {
    const roll = this.#random();
    return this.issueOperation(client, this.#cumulativeMix.find(([, upTo]) => roll < upTo)?.[0] ?? 'listNotes');
  }

  /** Sends one request of the given operation for a randomly chosen principal. */
  issueOperation(client: HttpClient, operation: NoteOperation): Promise<Outcome> {
    switch (operation) {
      case 'createNote':
        return this.#create(client, this.#anyPrincipal());
      case 'getNote':
        return this.#get(client, this.#anyPrincipal());
      case 'listNotes':
        return this.#list(client, this.#anyPrincipal());
      case 'updateNote': {
        const principal = this.#idlePrincipal();
        if (principal) return this.#patch(client, principal);
        this.patchFallbacks += 1;
        return this.#get(client, this.#anyPrincipal());
      }
    }
  }

  async #create(client: HttpClient, principal: Principal): Promise<Outcome> {
    const response = await client.send({
      method: 'POST',
      path: '/v1/notes',
      headers: { authorization: principal.authorization },
      body: { text: this.#text(), tags: this.#tags() },
    });
    const etag = header(response, 'etag');
    const id = header(response, 'location')?.split('/').pop()?.split('?')[0];
    if (response.status === 201 && etag && id) principal.notes.push({ id, etag });
    return outcomeOf('createNote', response);
  }

  async #get(client: HttpClient, principal: Principal): Promise<Outcome> {
    const note = this.#pick(principal.notes);
    const response = await client.send({
      method: 'GET',
      path: `/v1/notes/${note?.id ?? 'none'}`,
      headers: { authorization: principal.authorization },
    });
    return outcomeOf('getNote', response);
  }

  async #list(client: HttpClient, principal: Principal): Promise<Outcome> {
    const response = await client.send({
      method: 'GET',
      path: `/v1/notes?limit=${this.#options.listPageSize}`,
      headers: { authorization: principal.authorization },
    });
    if (response.status === 200) {
      try {
        const listed = (JSON.parse(response.body) as { items: unknown[] }).items.length;
        return { ...outcomeOf('listNotes', response), observed: { [LISTED_ITEMS]: listed } };
      } catch {
        // counted as a success by status; the item count is only informative
      }
    }
    return outcomeOf('listNotes', response);
  }

  async #patch(client: HttpClient, principal: Principal): Promise<Outcome> {
    const note = this.#pick(principal.notes);
    if (!note) return this.#get(client, principal);
    principal.patching = true;
    try {
      const change = this.#random() < 0.3 ? { text: this.#text(), tags: this.#tags() } : { text: this.#text() };
      const response = await client.send({
        method: 'PATCH',
        path: `/v1/notes/${note.id}`,
        headers: { authorization: principal.authorization, 'if-match': note.etag },
        body: change,
      });
      const etag = header(response, 'etag');
      if ((response.status === 200 || response.status === 412) && etag) note.etag = etag;
      return outcomeOf('updateNote', response);
    } finally {
      principal.patching = false;
    }
  }

  #anyPrincipal(): Principal {
    const principal = this.#pick(this.principals);
    if (!principal) throw new Error('The workload has no principals');
    return principal;
  }

  #idlePrincipal(): Principal | undefined {
    for (let attempt = 0; attempt < 20; attempt++) {
      const principal = this.#anyPrincipal();
      if (!principal.patching) return principal;
    }
    return undefined;
  }

  #pick<T>(items: readonly T[]): T | undefined {
    return items[Math.floor(this.#random() * items.length)];
  }

  #text(): string {
    const length = 20 + Math.floor(this.#random() * 60);
    return Array.from({ length }, () => this.#pick(WORDS) ?? 'note').join(' ');
  }

  #tags(): string[] {
    const count = Math.floor(this.#random() * 4);
    const tags = new Set<string>();
    while (tags.size < count) tags.add(this.#pick(TAGS) ?? 'ops');
    return [...tags];
  }
}

const header = (response: HttpResponse, name: string): string | undefined => {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
