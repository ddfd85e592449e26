import { Namespace, type NamespaceOwner, namespaceConstructionToken } from './namespace.ts';
import type { RecordKind, RecordKinds } from './record-kind.ts';

const TOKEN = '([A-Za-z0-9_-]{1,64})';
const PRINCIPAL_KEY = new RegExp(`^t/${TOKEN}/p/${TOKEN}/([a-z-]{1,32})(?:/a/${TOKEN})?(?:/s/${TOKEN})?$`);
const PROJECT_KEY = new RegExp(`^t/${TOKEN}/g/${TOKEN}/([a-z-]{1,32})(?:/k/${TOKEN})?$`);
const ORGANISATION_KEY = new RegExp(`^t/${TOKEN}/o/([a-z-]{1,32})$`);

/**
 * The second, narrow door to a Namespace: for the service's own jobs (event consumers, the reconciler,
 * workflows), which act on namespaces that no caller named — found in the namespace directory or resolved
 * from an event's hash. Request paths never import this (the boundary rule system-namespaces-only-in-system-jobs holds it so); they get
 * namespaces from a Scope only. Returns undefined for anything that is not a well-formed storage key of a
 * kind the process knows.
 */
export const namespaceFromStorageKey = (key: string, kinds: RecordKinds): Namespace | undefined => {
  let parts: { tenant: string; principal: string; kind: RecordKind; owner: NamespaceOwner } | undefined;
  const personal = PRINCIPAL_KEY.exec(key);
  const project = PROJECT_KEY.exec(key);
  const organisation = ORGANISATION_KEY.exec(key);
  const kindOf = (name: string | undefined) => (name === undefined ? undefined : kinds.get(name));
  const personalKind = kindOf(personal?.[3]);
  const projectKind = kindOf(project?.[3]);
  const organisationKind = kindOf(organisation?.[2]);
  if (personal?.[1] && personal[2] && personalKind) {
    parts = {
      tenant: personal[1],
      principal: personal[2],
      kind: personalKind,
      owner: {
        type: 'principal',
        ...(personal[4] && { agent: personal[4] }),
        ...(personal[5] && { session: personal[5] }),
      },
    };
  } else if (project?.[1] && project[2] && projectKind) {
    parts = {
      tenant: project[1],
      principal: '',
      kind: projectKind,
      owner: { type: 'project', projectId: project[2], ...(project[4] && { task: project[4] }) },
    };
  } else if (organisation?.[1] && organisationKind?.organisationOwned) {
    parts = { tenant: organisation[1], principal: '', kind: organisationKind, owner: { type: 'organisation' } };
  }
  if (!parts) return undefined;
  const namespace = new Namespace(namespaceConstructionToken, parts);
  return namespace.key === key ? namespace : undefined;
};

/** Who the service's own jobs act as, in provenance, events and the audit trail. */
export const systemActor = (job: string) => ({ principal: 'memory-hub-system', client: job });
