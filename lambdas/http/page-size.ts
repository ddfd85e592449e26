import type { PageRequest } from '../kernel/records/record.schema.ts';
import { listingSettings } from './http-config.ts';
import type { HttpContext } from './http-operation.ts';

/** A listing's page size: the one asked for, or the configured default. */
export const pageLimit = (http: HttpContext, limit: number | undefined): number =>
  limit ?? listingSettings.of(http.config.current()).defaultPageSize;

/** The page a listing's query asks for: its cursor, and its size or the configured default. */
export const pageRequestOf = (
  http: HttpContext,
  query: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
): PageRequest => ({ limit: pageLimit(http, query.limit), cursor: query.cursor });
