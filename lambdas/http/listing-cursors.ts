import { createHash } from 'node:crypto';
import type { Scope } from '../kernel/identity/scope.ts';
import { bindCursor } from '../kernel/records/page-cursor.ts';
import type { RouteVariant } from './operation.ts';

/*
 * A cursor belongs to the listing that issued it: the route, the caller, the path and every filter — all of the
 * request except where in the listing it is (`cursor`) and how much it asks for (`limit`). The request
 * middleware refuses a cursor sent with any other listing (422, `unbindCursor`) before the handler runs;
 * handlers bind the cursors they hand out with `issuedCursor`. An operation is a listing when its query takes
 * a `cursor`.
 */

const PAGING_FIELDS = new Set(['cursor', 'limit']);

/** The digest that identifies a listing request; the same for each page of it. */
export const listingOf = (
  route: RouteVariant,
  scope: Scope | undefined,
  params: Readonly<Record<string, unknown>>,
  query: Readonly<Record<string, unknown>>,
): string => {
  const filters = sortedEntries(query).filter(([name, value]) => !PAGING_FIELDS.has(name) && value !== undefined);
  const identity = [route.operationId, scope?.tenant ?? null, scope?.principal ?? null, sortedEntries(params), filters];
  return createHash('sha256').update(JSON.stringify(identity)).digest('base64url').slice(0, 22);
};

/** The next page's cursor as the caller is given it: bound to the listing the request made. */
export const issuedCursor = (
  input: { readonly listing?: string | undefined },
  nextCursor: string | undefined,
): string | undefined => {
  if (nextCursor === undefined) return undefined;
  if (input.listing === undefined) throw new TypeError('Only an operation whose query takes a cursor issues one');
  return bindCursor(nextCursor, input.listing);
};

const sortedEntries = (values: Readonly<Record<string, unknown>>): [string, unknown][] =>
  Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
