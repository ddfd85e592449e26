/**
 * Whose key encrypts a namespace's content: the principal, the project or the organisation that owns the
 * namespace. Every namespace of one owner — each kind, agent and session of a principal — shares that owner's
 * key, so destroying the key makes everything the owner holds unreadable at once (crypto-shredding).
 */
export type KeyScope =
  | { readonly tenant: string; readonly owner: 'principal'; readonly principal: string }
  | { readonly tenant: string; readonly owner: 'project'; readonly projectId: string }
  | { readonly tenant: string; readonly owner: 'organisation' };

// The storage key shapes of `Namespace.key`: t/{tenant}/p/{principal}/…, t/{tenant}/g/{project}/…[/k/{task}],
// t/{tenant}/o/…. A project's tasks share the project's key.
const TOKEN = '([A-Za-z0-9_-]{1,64})';
const PRINCIPAL_KEY = new RegExp(`^t/${TOKEN}/p/${TOKEN}/[a-z-]{1,32}(?:/a/${TOKEN})?(?:/s/${TOKEN})?$`);
const PROJECT_KEY = new RegExp(`^t/${TOKEN}/g/${TOKEN}/[a-z-]{1,32}(?:/k/${TOKEN})?$`);
const ORGANISATION_KEY = new RegExp(`^t/${TOKEN}/o/[a-z-]{1,32}$`);

/** The key scope of a namespace storage key of `tenant`; undefined for anything that is not one. */
export const keyScopeOf = (tenant: string, namespaceKey: string): KeyScope | undefined => {
  const personal = PRINCIPAL_KEY.exec(namespaceKey);
  if (personal?.[1] === tenant && personal[2]) return { tenant, owner: 'principal', principal: personal[2] };
  const project = PROJECT_KEY.exec(namespaceKey);
  if (project?.[1] === tenant && project[2]) return { tenant, owner: 'project', projectId: project[2] };
  const organisation = ORGANISATION_KEY.exec(namespaceKey);
  if (organisation?.[1] === tenant) return { tenant, owner: 'organisation' };
  return undefined;
};

/**
 * The seam crypto-shredding goes through: which key holds a scope's content. The lifecycle capability will
 * destroy that key (every version of it) to make the scope's content unreadable, backups included.
 */
export interface ScopeKeyDirectory {
  /** The identifier of the scope's key in the key store; the same for the scope wherever it is asked. */
  keyIdOf(scope: KeyScope): Promise<string>;
}
