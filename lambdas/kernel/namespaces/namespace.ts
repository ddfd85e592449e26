import { createHash } from 'node:crypto';
import type { RecordKind } from './record-kind.ts';

export type NamespaceOwner =
  | { readonly type: 'principal'; readonly agent?: string; readonly session?: string }
  | { readonly type: 'project'; readonly projectId: string; readonly task?: string }
  | { readonly type: 'organisation' };

/** Held only by `Scope` (and the system door for storage keys): without it, `new Namespace(...)` cannot be called. */
export const namespaceConstructionToken: unique symbol = Symbol('namespace-construction');

/**
 * Where a piece of memory lives: who owns it (filled in from the verified token, never from the request),
 * what kind it is, and an optional narrowing inside the owner's space. Only `Scope.namespace()` builds
 * one, so another principal's or tenant's address cannot be expressed.
 */
export class Namespace {
  readonly tenant: string;
  readonly kind: RecordKind;
  readonly owner: NamespaceOwner;
  /**
   * The storage key: `t/{tenant}/p/{principal}/{kind}[/a/{agent}][/s/{session}]`,
   * `t/{tenant}/g/{project}/{kind}[/k/{task}]` or, for what the organisation owns, `t/{tenant}/o/{kind}`.
   */
  readonly key: string;

  constructor(
    token: typeof namespaceConstructionToken,
    parts: { tenant: string; principal: string; kind: RecordKind; owner: NamespaceOwner },
  ) {
    if (token !== namespaceConstructionToken) throw new TypeError('A Namespace is built only by Scope.namespace()');
    this.tenant = parts.tenant;
    this.kind = parts.kind;
    this.owner = parts.owner;
    const owner = parts.owner;
    const kind = parts.kind.name;
    if (owner.type === 'project') {
      this.key = `t/${parts.tenant}/g/${owner.projectId}/${kind}${owner.task ? `/k/${owner.task}` : ''}`;
    } else if (owner.type === 'organisation') {
      this.key = `t/${parts.tenant}/o/${kind}`;
    } else {
      const agent = owner.agent ? `/a/${owner.agent}` : '';
      const session = owner.session ? `/s/${owner.session}` : '';
      this.key = `t/${parts.tenant}/p/${parts.principal}/${kind}${agent}${session}`;
    }
    Object.freeze(this);
  }

  /** An opaque, stable stand-in for the key, for events, logs and metrics that must not carry it in clear. */
  get hash(): string {
    return hashNamespaceKey(this.key);
  }

  equals(other: Namespace): boolean {
    return this.key === other.key;
  }
}

/** Hashes are asked for on every write (events, directory, outbox); the busy namespaces are few. Bounded. */
const knownHashes = new Map<string, string>();
const KNOWN_HASHES_CAPACITY = 10_000;

export const hashNamespaceKey = (key: string): string => {
  let hash = knownHashes.get(key);
  if (hash === undefined) {
    hash = createHash('sha256').update(`memory-hub/namespace/${key}`).digest('base64url').slice(0, 22);
    if (knownHashes.size >= KNOWN_HASHES_CAPACITY) knownHashes.clear();
    knownHashes.set(key, hash);
  }
  return hash;
};
