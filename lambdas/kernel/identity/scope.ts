import { NotFoundError, ValidationFailedError } from '../errors/domain-error.ts';
import { Namespace, type NamespaceOwner, namespaceConstructionToken } from '../namespaces/namespace.ts';
import { isRecordKind, type RecordKind } from '../namespaces/record-kind.ts';
import { type ProjectMembership, SAFE_TOKEN, type VerifiedClaims } from './verified-claims.ts';

/** Narrows a namespace inside the space the caller already owns; every value is a request input, so every
 * value is validated here. */
export interface Narrowing {
  agent?: string | undefined;
  session?: string | undefined;
  project?: string | undefined;
  /** One task of the project (its blackboard): allowed with `project` only. */
  task?: string | undefined;
  /** The organisation's own space, for kinds that are organisation-owned: readable by every member of the tenant. */
  organisation?: boolean | undefined;
}

/** The project role that may manage a project's shared settings (its guardrails). */
export const PROJECT_ADMIN_ROLE = 'admin';

const scopeConstructionToken: unique symbol = Symbol('scope-construction');

/**
 * Who is calling, as proven by a verified token: tenant, principal, calling client and memberships. It is
 * the only source of namespaces, so every storage address is derived from identity rather than from input.
 */
export class Scope {
  readonly tenant: string;
  readonly principal: string;
  readonly client: string;
  readonly memberships: readonly ProjectMembership[];
  readonly orgAdmin: boolean;

  private constructor(token: typeof scopeConstructionToken, claims: VerifiedClaims) {
    if (token !== scopeConstructionToken) throw new TypeError('A Scope is built only from verified claims');
    this.tenant = claims.tenant;
    this.principal = claims.principal;
    this.client = claims.client;
    this.memberships = Object.freeze([...claims.memberships]);
    this.orgAdmin = claims.orgAdmin;
    Object.freeze(this);
  }

  static fromVerifiedClaims(claims: VerifiedClaims): Scope {
    return new Scope(scopeConstructionToken, claims);
  }

  /** Who acts, as a revision's provenance and an audit entry record it. */
  get actor(): { principal: string; client: string } {
    return { principal: this.principal, client: this.client };
  }

  isMemberOf(projectId: string): boolean {
    return this.memberships.some((membership) => membership.projectId === projectId);
  }

  isAdminOf(projectId: string): boolean {
    return this.memberships.some(
      (membership) => membership.projectId === projectId && membership.role === PROJECT_ADMIN_ROLE,
    );
  }

  /**
   * The namespace of `kind`, owned by the caller — or by one of the caller's projects when `project` is
   * given. A project the caller is not a member of answers NotFound, exactly like a project that does
   * not exist.
   */
  namespace(kind: RecordKind, narrowing: Narrowing = {}): Namespace {
    if (!isRecordKind(kind))
      throw new ValidationFailedError('Unknown memory kind', [{ path: 'kind', message: 'not a known kind' }]);
    const agent = validNarrowing('agent', narrowing.agent);
    const session = validNarrowing('session', narrowing.session);
    const project = validNarrowing('project', narrowing.project);
    const task = validNarrowing('task', narrowing.task);
    if (task !== undefined && project === undefined)
      throw new ValidationFailedError('A task narrows a project namespace only', [
        { path: 'task', message: 'allowed with a project only' },
      ]);
    let owner: NamespaceOwner;
    if (narrowing.organisation === true) {
      if (!kind.organisationOwned || agent !== undefined || session !== undefined || project !== undefined)
        throw new ValidationFailedError('The organisation owns only its shared settings, not narrowed', [
          { path: 'kind', message: "the organisation's space holds organisation-owned kinds only" },
        ]);
      owner = { type: 'organisation' };
    } else if (project !== undefined) {
      if (agent !== undefined || session !== undefined) {
        throw new ValidationFailedError('A project namespace cannot be narrowed to an agent or a session', [
          { path: agent !== undefined ? 'agent' : 'session', message: 'not allowed with a project' },
        ]);
      }
      if (!this.isMemberOf(project)) throw new NotFoundError();
      owner = { type: 'project', projectId: project, ...(task && { task }) };
    } else {
      owner = { type: 'principal', ...(agent && { agent }), ...(session && { session }) };
    }
    return new Namespace(namespaceConstructionToken, { tenant: this.tenant, principal: this.principal, kind, owner });
  }
}

const validNarrowing = (field: keyof Narrowing, value: string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  if (!SAFE_TOKEN.test(value)) {
    throw new ValidationFailedError(`Invalid ${field} name`, [
      { path: field, message: 'must be 1-64 characters of A-Z, a-z, 0-9, _ or -' },
    ]);
  }
  return value;
};
