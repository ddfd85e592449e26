import { createHash } from 'node:crypto';

/**
 * Strong ETag for one revision of one record: the revision number plus a digest binding it to the record
 * id, so an ETag copied from another record never matches.
 */
export const etagOf = (recordId: string, revision: number): string => `"${revision}-${digest(recordId, revision)}"`;

/** True when the If-Match value names exactly this revision of this record. */
export const etagMatches = (ifMatch: string, recordId: string, revision: number): boolean =>
  ifMatch
    .split(',')
    .map((candidate) => candidate.trim())
    .some((candidate) => candidate === etagOf(recordId, revision));

const digest = (recordId: string, revision: number): string =>
  createHash('sha256').update(`${recordId}#${revision}`).digest('base64url').slice(0, 12);
