import type { PageRequest } from '../kernel/records/record.schema.ts';
import { listingSettings } from './http-config.ts';
import type { HttpContext } from './http-operation.ts';

/** The page a listing's query asks for: its cursor, and its size or the configured default. */
export const pageRequestOf = (
  http: HttpContext,
  query: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
): PageRequest => ({
  limit: query.limit ?? listingSettings.of(http.config.current()).defaultPageSize,
  cursor: query.cursor,
});
