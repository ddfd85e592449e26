import * as z from 'zod';

export const AuditDecision = z.enum(['committed', 'allowed', 'denied', 'clamped', 'refused']);
export type AuditDecision = z.infer<typeof AuditDecision>;

/**
 * One line of the privacy-safe audit trail: who, what kind of action, on which record, the decision and a
 * reason code. Never content, never a namespace in clear.
 */
export const AuditEntry = z
  .object({
    id: z.string(),
    occurredAt: z.iso.datetime(),
    actor: z.object({ principal: z.string(), client: z.string() }),
    action: z.string().regex(/^[a-z][a-z0-9._-]{0,63}$/),
    recordKind: z.string().nullable(),
    recordId: z.string().nullable(),
    revision: z.number().int().nullable(),
    decision: AuditDecision,
    reasonCode: z.string().regex(/^[a-z][a-z0-9._-]{0,63}$/),
  })
  .strict()
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntry>;
