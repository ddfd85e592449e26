import { createHash } from 'node:crypto';

/** The closed set of logical stores. A caller chooses one of these; it never writes a namespace string. */
export const NAMESPACE_KINDS = [
  'note',
  'profile',
  'preference',
  'pattern',
  'activity',
  'session-events',
  'procedure',
  'task',
  'finding',
  'source',
  'guardrail',
  'idempotency',
] as const;
export type NamespaceKind = (typeof NAMESPACE_KINDS)[number];

export type NamespaceOwner =
  | { readonly type: 'principal'; readonly agent?: string; readonly session?: string }
  | { readonly type: 'project'; readonly projectId: string }
  | { readonly type: 'organisation' };

/** Kinds the organisation itself owns: what every member of the tenant reads and only org admins write. */
export const ORGANISATION_KINDS: readonly NamespaceKind[] = ['guardrail'];

/**
 * Kinds whose records are written once and never revised (short-term events): a record is its single revision,
 * stored as one item with no head projection beside it, and ends only by expiring. Stores refuse any revision
 * but the first of these, list them from their revisions and leave them out of head projection.
 */
export const JOURNAL_KINDS: readonly NamespaceKind[] = ['session-events'];
export const isJournalKind = (kind: NamespaceKind): boolean => JOURNAL_KINDS.includes(kind);

/** Held only by `Scope`: without it, `new Namespace(...)` cannot be called. */
export const namespaceConstructionToken: unique symbol = Symbol('namespace-construction');

/**
 * Where a piece of memory lives: who owns it (filled in from the verified token, never from the request),
 * what kind it is, and an optional narrowing inside the owner's space. Only `Scope.namespace()` builds
 * one, so another principal's or tenant's address cannot be expressed.
 */
export class Namespace {
  readonly tenant: string;
  readonly kind: NamespaceKind;
  readonly owner: NamespaceOwner;
  /**
   * The storage key: `t/{tenant}/p/{principal}/{kind}[/a/{agent}][/s/{session}]`, `t/{tenant}/g/{project}/{kind}`
   * or, for what the organisation owns, `t/{tenant}/o/{kind}`.
   */
  readonly key: string;

  constructor(
    token: typeof namespaceConstructionToken,
    parts: { tenant: string; principal: string; kind: NamespaceKind; owner: NamespaceOwner },
  ) {
    if (token !== namespaceConstructionToken) throw new TypeError('A Namespace is built only by Scope.namespace()');
    this.tenant = parts.tenant;
    this.kind = parts.kind;
    this.owner = parts.owner;
    const owner = parts.owner;
    if (owner.type === 'project') {
      this.key = `t/${parts.tenant}/g/${owner.projectId}/${parts.kind}`;
    } else if (owner.type === 'organisation') {
      this.key = `t/${parts.tenant}/o/${parts.kind}`;
    } else {
      const agent = owner.agent ? `/a/${owner.agent}` : '';
      const session = owner.session ? `/s/${owner.session}` : '';
      this.key = `t/${parts.tenant}/p/${parts.principal}/${parts.kind}${agent}${session}`;
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
