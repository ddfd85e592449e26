import type { AuditEntry } from '../../kernel/audit/audit-entry.schema.ts';
import type { AuditTrail } from '../../kernel/audit/audit-trail.port.ts';
import { ForbiddenError } from '../../kernel/identity/identity.errors.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import type { Page, PageRequest } from '../../kernel/records/record.schema.ts';

/** Reading the audit trail: org admins only, and only their own tenant's (the tenant comes from the token). */
export class AuditService {
  readonly #trail: AuditTrail;

  constructor(deps: { trail: AuditTrail }) {
    this.#trail = deps.trail;
  }

  list(scope: Scope, page: PageRequest & { since?: string | undefined }): Promise<Page<AuditEntry>> {
    if (!scope.orgAdmin) throw new ForbiddenError('Only an organisation admin may read the audit trail');
    return this.#trail.list(scope.tenant, page);
  }
}
