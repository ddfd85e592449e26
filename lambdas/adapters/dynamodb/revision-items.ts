import * as z from 'zod';
import type { ContentCipher } from '../../kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../kernel/crypto/crypto.errors.ts';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/records/page-cursor.ts';
import {
  type Page,
  type PageRequest,
  type RecordRevision,
  RecordStatus,
  RevisionPayload,
} from '../../kernel/records/record.schema.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { ttlEpochSeconds } from './memory-table.ts';
import type { Item, MemoryTableClient } from './memory-table-client.ts';

/*
 * How a revision is kept as an item, shared by the adapters of the record ports: `pk` is the namespace key,
 * `sk` is `R#{id}#{revision:010d}` for a revision and `H#{id}` for the head projection; content and
 * provenance are one ciphertext bound to tenant, namespace and record id.
 */

export const revisionSortKey = (id: string, revision: number): string =>
  `R#${id}#${String(revision).padStart(10, '0')}`;
export const headSortKey = (id: string): string => `H#${id}`;
export const revisionsPrefixOf = (id: string): string => `R#${id}#`;
/** Where a namespace's heads are: the head items, or for a journal kind its records' single revisions. */
export const headsPrefixOf = (namespace: Namespace): string => (namespace.kind.journal ? 'R#' : 'H#');

/** Pages through a filtered query are refilled at most this many times before a partial page is returned. */
const MAX_PAGE_REFILLS = 5;

/** A revision or head item as read back: checked here, before anything of it is trusted. */
const StoredRevision = z
  .object({
    pk: z.string(),
    sk: z.string(),
    recordId: z.string(),
    revision: z.number().int().positive(),
    status: RecordStatus,
    createdAt: z.string(),
    updatedAt: z.string(),
    expiresAt: z.string(),
    payload: z.instanceof(Uint8Array),
  })
  .loose();

/**
 * Encrypts revisions into items and reads items back into revisions. Defence in depth on the way back: the
 * item must carry the namespace and record that were asked for, and its ciphertext must decrypt under exactly
 * that context; anything else is refused and counted, never returned.
 */
export class RevisionItems {
  readonly #table: MemoryTableClient;
  readonly #cipher: ContentCipher;
  readonly #metrics: Metrics;
  readonly #clock: Clock;

  constructor(options: { table: MemoryTableClient; cipher: ContentCipher; metrics: Metrics; clock: Clock }) {
    if (!options.cipher) throw new TypeError('Revisions are encrypted or not stored: a cipher is required');
    this.#table = options.table;
    this.#cipher = options.cipher;
    this.#metrics = options.metrics;
    this.#clock = options.clock;
  }

  async encode(revision: RecordRevision, sortKey: string): Promise<Item> {
    const payload: RevisionPayload = { content: revision.content, provenance: revision.provenance };
    const ciphertext = await this.#cipher.encrypt(Buffer.from(JSON.stringify(payload), 'utf8'), {
      tenant: revision.namespace.tenant,
      namespace: revision.namespace.key,
      recordId: revision.id,
    });
    return {
      pk: revision.namespace.key,
      sk: sortKey,
      recordId: revision.id,
      revision: revision.revision,
      status: revision.status,
      createdAt: revision.createdAt,
      updatedAt: revision.updatedAt,
      expiresAt: revision.expiresAt,
      ttl: ttlEpochSeconds(Date.parse(revision.expiresAt)),
      payload: ciphertext,
    };
  }

  async decode(namespace: Namespace, item: Item, expectedId: string): Promise<RecordRevision | undefined> {
    const stored = StoredRevision.safeParse(item);
    const inScope =
      stored.success &&
      stored.data.pk === namespace.key &&
      stored.data.recordId === expectedId &&
      (stored.data.sk === headSortKey(expectedId) ||
        stored.data.sk === revisionSortKey(expectedId, stored.data.revision));
    if (!stored.success || !inScope) {
      this.#metrics.count('scope.violation_refused');
      return undefined;
    }
    let plaintext: Uint8Array;
    try {
      plaintext = await this.#cipher.decrypt(stored.data.payload, {
        tenant: namespace.tenant,
        namespace: namespace.key,
        recordId: expectedId,
      });
    } catch (error) {
      if (!(error instanceof CiphertextContextMismatchError)) throw error;
      this.#metrics.count('crypto.context_mismatch_refused');
      return undefined;
    }
    const payload = RevisionPayload.parse(JSON.parse(Buffer.from(plaintext).toString('utf8')));
    return {
      id: expectedId,
      namespace,
      revision: stored.data.revision,
      status: stored.data.status,
      content: payload.content,
      provenance: payload.provenance,
      createdAt: stored.data.createdAt,
      updatedAt: stored.data.updatedAt,
      expiresAt: stored.data.expiresAt,
    };
  }

  /** Not past its expiry by this adapter's clock: expired items are left out of every read. */
  live(revision: RecordRevision): boolean {
    return Date.parse(revision.expiresAt) > this.#clock.now().getTime();
  }

  /**
   * Queries `prefix` in the namespace and keeps what `keep` accepts and has not expired, refilling the page
   * (a bounded number of times) when the filter leaves it short. The cursor is the last key's sort key, and
   * only a position under `prefix` is accepted back.
   */
  async page(
    namespace: Namespace,
    page: PageRequest,
    selection: {
      readonly prefix: string;
      /** The record the items belong to; absent when each item names its own (a listing of heads). */
      readonly recordId?: string | undefined;
      readonly keep: (revision: RecordRevision) => boolean;
      readonly includeExpired?: boolean;
    },
  ): Promise<Page<RecordRevision>> {
    let position = page.cursor ? decodeCursor(page.cursor, (p) => p.startsWith(selection.prefix)) : undefined;
    const kept: RecordRevision[] = [];
    for (let refill = 0; refill < MAX_PAGE_REFILLS && kept.length < page.limit; refill++) {
      const { items, lastSortKey } = await this.#table.querySortKeys({
        pk: namespace.key,
        prefix: selection.prefix,
        after: position,
        limit: page.limit - kept.length,
        forward: page.descending !== true,
      });
      // Decrypted side by side: in AWS each is a KMS round trip, and they do not depend on each other.
      const revisions = await Promise.all(
        items.map((item) =>
          this.decode(namespace, item, selection.recordId ?? (typeof item.recordId === 'string' ? item.recordId : '')),
        ),
      );
      for (const revision of revisions)
        if (revision && (selection.includeExpired || this.live(revision)) && selection.keep(revision))
          kept.push(revision);
      position = lastSortKey;
      if (position === undefined) break;
    }
    return { items: kept, nextCursor: position === undefined ? undefined : encodeCursor(position) };
  }
}
