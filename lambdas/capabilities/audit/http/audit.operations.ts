import * as z from 'zod';
import { Cursor, PageSize } from '../../../http/api-schemas.ts';
import { ADMIN_FAILURES } from '../../../http/common-responses.ts';
import { defineOperation, NoBody, NoParams } from '../../../http/operation.ts';
import { AuditEntry } from '../../../kernel/audit/audit-entry.schema.ts';

const ENTRY = 'lambdas/capabilities/audit/audit.lambda.ts';

export const AuditPage = z
  .object({ items: z.array(AuditEntry), nextCursor: z.string().optional() })
  .meta({ id: 'AuditPage' });

export const listAudit = defineOperation({
  summary: "The organisation's audit trail, oldest first",
  tag: 'admin',
  routes: [{ operationId: 'listAudit', method: 'GET', path: '/v1/audit', project: false }],
  authenticated: true,
  requiredScope: 'memory-hub/memory.admin',
  lambda: { entry: ENTRY, handler: 'listAudit', access: 'read' },
  params: NoParams,
  query: z
    .object({
      since: z.iso.datetime({ error: 'since must be an ISO-8601 instant, e.g. 2026-11-30T00:00:00Z' }).optional(),
      cursor: Cursor.optional(),
      limit: PageSize.optional(),
    })
    .strict(),
  body: NoBody,
  responses: { 200: { description: 'A page of audit entries', schema: AuditPage }, ...ADMIN_FAILURES },
});
