import * as z from 'zod';
import { SAFE_TOKEN } from '../../kernel/identity/verified-claims.ts';
import { RECORD_KIND_NAME } from '../../kernel/namespaces/record-kind.ts';

/** How hits are found: newest first, by words (BM25), by meaning, by a blend of both, or by following relations. */
export const SEARCH_STRATEGIES = ['recency', 'keyword', 'semantic', 'hybrid', 'graph'] as const;
export const SearchStrategy = z.enum(SEARCH_STRATEGIES);
export type SearchStrategy = z.infer<typeof SearchStrategy>;

export const SEARCH_QUERY_MAX_LENGTH = 2000;
export const SEARCH_K_MAX = 50;
export const CONTEXT_MAX_TOKENS = 32_000;

const Name = z.string().regex(SAFE_TOKEN, 'must be 1-64 characters of A-Z, a-z, 0-9, _ or -');
/** Compared with stored instants as text, so written the way they are: `…T00:00:00Z` becomes `…T00:00:00.000Z`. */
const Instant = z.iso
  .datetime({ message: 'an instant is an ISO 8601 UTC date-time' })
  .transform((instant) => new Date(instant).toISOString());

export const SearchFilters = z
  .object({
    tags: z
      .array(z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'a tag is 1-64 characters of A-Z, a-z, 0-9, _, ., : or -'))
      .max(20, 'at most 20 tags')
      .optional(),
    status: z
      .array(z.string().regex(/^[a-z][a-z_-]{0,31}$/, 'a status is a lower-case word'))
      .min(1)
      .max(10, 'at most 10 statuses')
      .optional(),
    since: Instant.optional(),
    until: Instant.optional(),
  })
  .strict()
  .refine((filters) => !filters.since || !filters.until || filters.since < filters.until, {
    message: 'since must be before until',
    path: ['until'],
  });
export type SearchFilters = z.infer<typeof SearchFilters>;

const searchFields = {
  query: z.string().max(SEARCH_QUERY_MAX_LENGTH, `query is at most ${SEARCH_QUERY_MAX_LENGTH} characters`).default(''),
  kinds: z
    .array(z.string().regex(RECORD_KIND_NAME, 'a kind is a lower-case record kind name'))
    .min(1, 'give at least one kind, or leave kinds out for all')
    .max(16)
    .optional(),
  strategy: SearchStrategy.default('hybrid'),
  agent: Name.optional(),
  project: Name.optional(),
  filters: SearchFilters.optional(),
};

/** Every strategy but recency ranks by the query, so it needs one. */
const needsQuery = (input: { query: string; strategy: SearchStrategy }) =>
  input.strategy === 'recency' || input.query.trim().length > 0;
const QUERY_REQUIRED = { message: 'query is required for this strategy', path: ['query'] };

export const SearchInput = z
  .object({
    ...searchFields,
    k: z.number().int().min(1, 'k is at least 1').max(SEARCH_K_MAX, `k is at most ${SEARCH_K_MAX}`).default(10),
  })
  .strict()
  .refine(needsQuery, QUERY_REQUIRED);
export type SearchInput = z.infer<typeof SearchInput>;

export const ContextInput = z
  .object({
    ...searchFields,
    maxTokens: z
      .number()
      .int()
      .min(16, 'maxTokens is at least 16')
      .max(CONTEXT_MAX_TOKENS, `maxTokens is at most ${CONTEXT_MAX_TOKENS}`),
  })
  .strict()
  .refine(needsQuery, QUERY_REQUIRED);
export type ContextInput = z.infer<typeof ContextInput>;
