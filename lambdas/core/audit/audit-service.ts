import { ForbiddenError } from '../identity/identity.errors.ts';
import type { Scope } from '../identity/scope.ts';
import type { Page, PageRequest } from '../records/record.schema.ts';
import type { AuditEntry } from './audit-entry.schema.ts';
import type { AuditTrail } from './audit-trail.port.ts';

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
