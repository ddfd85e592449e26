import * as z from 'zod';

/** Names the caller may use inside its own space: agents, projects. No separators, no traversal. */
export const SafeName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of A-Z, a-z, 0-9, _ or -');

/**
 * A record's id in a path: the ids the service issues (ULIDs) and nothing that API Gateway's decoding could turn
 * into path structure (`%`, `/`, `?`, `#`), so a path means the same record locally and in AWS. Anything else
 * names no record: 404, like any absent one.
 */
export const RecordId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

export const Cursor = z
  .string()
  .min(1)
  .max(1024)
  .describe(
    'Opaque: the `nextCursor` of the page before, valid only with the request that got it (the same path, filters and caller; `limit` may change)',
  );

export const PageSize = z.coerce
  .number({ error: 'limit must be a whole number' })
  .int('limit must be a whole number')
  .min(1, 'limit is at least 1')
  .max(100, 'limit is at most 100');

export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      requestId: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      /** Why content was refused (e.g. `pii.email`), never the value itself. */
      reasons: z.array(z.string()).optional(),
    }),
  })
  .meta({ id: 'Error' });

export const Owner = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('principal'), agent: z.string().optional(), session: z.string().optional() }),
    z.object({ type: z.literal('project'), projectId: z.string(), task: z.string().optional() }),
    z.object({ type: z.literal('organisation') }),
  ])
  .meta({ id: 'Owner', description: "Whose space the record lives in, in the caller's own terms." });

const Actor = z.object({ principal: z.string(), client: z.string() });

export const Provenance = z
  .object({ createdBy: Actor, revisedBy: Actor, sourceEventIds: z.array(z.string()) })
  .meta({ id: 'Provenance' });

export const HealthResponse = z.object({ status: z.literal('ok'), service: z.literal('memory-hub') });
