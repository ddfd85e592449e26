import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { KeyScope } from '../../kernel/crypto/key-scope.ts';

/**
 * The branch key that names the others. Its material never encrypts content: it keys the HMAC below. It must
 * never be versioned or destroyed — every scope's branch key id is derived from it.
 */
export const NAMING_BRANCH_KEY_ID = 'memory-hub-branch-key-names';

/** Scopes whose ids are kept: one process serves a few thousand at most in a cache period; past that it starts over. */
const RECENT_SCOPES = 10_000;

/**
 * Branch key ids that do not show whose key it is. A key store item (and every ciphertext, whose header names
 * the branch key) carries its id in clear, so the id is `mh1-` and the HMAC-SHA-256 of the scope (tenant, owner
 * kind, principal or project) under a key derived from the naming branch key: someone who can read the key
 * store table or a backup of it, but cannot have KMS unwrap the naming key, can neither read a tenant,
 * principal or project out of an id nor confirm a guess (a plain hash would let them test guessed project
 * names). The same scope always has the same id, in every process.
 */
export class BranchKeyIds {
  /** A KeyObject, not bytes: Node checks a raw key's type by throwing and catching, which costs more than the HMAC. */
  readonly #key: KeyObject;
  /** Every encryption asks for its scope's id: the ids of recent scopes are kept (a scope's id never changes). */
  readonly #recent = new Map<string, string>();

  constructor(namingKey: Uint8Array) {
    this.#key = createSecretKey(
      Buffer.from(hkdfSync('sha256', namingKey, Buffer.alloc(0), 'memory-hub branch key ids v1', 32)),
    );
  }

  of(scope: KeyScope): string {
    const owner = scope.owner === 'principal' ? scope.principal : scope.owner === 'project' ? scope.projectId : '';
    // JSON keeps the parts apart: no tenant and principal can run together into another pair.
    const name = JSON.stringify([scope.tenant, scope.owner, owner]);
    const known = this.#recent.get(name);
    if (known !== undefined) return known;
    const id = `mh1-${createHmac('sha256', this.#key).update(name).digest('base64url')}`;
    if (this.#recent.size >= RECENT_SCOPES) this.#recent.clear();
    this.#recent.set(name, id);
    return id;
  }
}
