import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { issuedCursor } from '../../../http/listing-cursors.ts';
import { pageRequestOf } from '../../../http/page-size.ts';
import { ok } from '../../../http/responses.ts';
import type { AuditService } from '../audit-service.ts';
import * as audit from './audit.operations.ts';

/** The audit trail's handlers, by export name. */
export const auditHandlers = (service: AuditService, http: HttpContext) => ({
  listAudit: httpOperation(audit.listAudit, http).handler(async ({ scope, input }) => {
    const page = await service.list(scope, { since: input.query.since, ...pageRequestOf(http, input.query) });
    return ok({ items: page.items, nextCursor: issuedCursor(input, page.nextCursor) });
  }),
});
