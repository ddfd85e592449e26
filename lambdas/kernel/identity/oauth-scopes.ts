import { InsufficientScopeError } from './identity.errors.ts';

/**
 * The OAuth scopes of the user pool's `memory-hub` resource server, one per kind of operation: reading
 * memory, changing it, and administering the organisation's governance (guardrail changes, the audit
 * trail, workflows). Every authenticated operation requires exactly one; a client holds what its app
 * client allows (lib/constructs/identity.ts declares the same names).
 */
export const MEMORY_HUB_SCOPES = {
  read: 'memory-hub/memory.read',
  write: 'memory-hub/memory.write',
  admin: 'memory-hub/memory.admin',
} as const;

export type MemoryHubScope = (typeof MEMORY_HUB_SCOPES)[keyof typeof MEMORY_HUB_SCOPES];

/** Every scope, in the order `read, write, admin`. */
export const ALL_MEMORY_HUB_SCOPES: readonly MemoryHubScope[] = Object.freeze(Object.values(MEMORY_HUB_SCOPES));

export const isMemoryHubScope = (value: unknown): value is MemoryHubScope =>
  (ALL_MEMORY_HUB_SCOPES as readonly unknown[]).includes(value);

/**
 * The scopes a token grants. Cognito access tokens (and the local issuer's) carry `scope` as one
 * space-separated string (RFC 6749 §3.3), and API Gateway hands it on unchanged; anything else grants nothing.
 */
const grantedScopes = (claims: Readonly<Record<string, unknown>>): ReadonlySet<string> =>
  new Set(typeof claims.scope === 'string' ? claims.scope.split(' ') : []);

/** Refuses (403) a token that does not grant `required`: the client may not call this operation at all. */
export const assertScopeGranted = (claims: Readonly<Record<string, unknown>>, required: MemoryHubScope): void => {
  if (!grantedScopes(claims).has(required)) throw new InsufficientScopeError(required);
};
