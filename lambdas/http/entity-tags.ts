import { createHash } from 'node:crypto';
import type { ExpectedRevisions } from '../kernel/records/record.schema.ts';

/*
 * Entity tags are HTTP's name for a revision. The core speaks in revisions; this file alone turns a revision
 * into the ETag a caller sees, and an If-Match header back into the revisions it names.
 */

/**
 * Strong ETag for one revision of one record: the revision number plus a digest binding it to the record
 * id, so an ETag copied from another record never matches.
 */
export const etagOf = (recordId: string, revision: number): string => `"${revision}-${digest(recordId, revision)}"`;

const ENTITY_TAG = /^"(\d{1,10})-[A-Za-z0-9_-]{12}"$/;

/**
 * The revisions of this record an If-Match header names: each listed tag that is an ETag of this record.
 * Tags of other records, weak or malformed tags name nothing (so a list of only those matches no revision).
 */
export const revisionsNamedBy = (ifMatch: string, recordId: string): ExpectedRevisions =>
  ifMatch
    .split(',')
    .map((candidate) => candidate.trim())
    .flatMap((candidate) => {
      const revision = Number(ENTITY_TAG.exec(candidate)?.[1] ?? Number.NaN);
      return Number.isSafeInteger(revision) && etagOf(recordId, revision) === candidate ? [revision] : [];
    });

/** The revisions an optional If-Match names; undefined when the request sent none. */
export const expectedRevisionsOf = (ifMatch: string | undefined, recordId: string): ExpectedRevisions | undefined =>
  ifMatch === undefined ? undefined : revisionsNamedBy(ifMatch, recordId);

const digest = (recordId: string, revision: number): string =>
  createHash('sha256').update(`${recordId}#${revision}`).digest('base64url').slice(0, 12);
