import { listingSettings } from '../kernel/config/kernel-config.ts';
import type { HttpContext } from './http-operation.ts';

/** A listing's page size: the one asked for, or the configured default. */
export const pageLimit = (http: HttpContext, limit: number | undefined): number =>
  limit ?? listingSettings.of(http.config.current()).defaultPageSize;
