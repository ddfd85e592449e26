/**
 * The bench's callers: principals spread over a few tenants, each with a token minted by the local issuer,
 * and one organisation admin per tenant. Minting is slow (the issuer makes an RSA key pair on its first
 * call), so the bench mints once into a template folder and copies the issuer into every fresh data folder:
 * the tokens are valid wherever that issuer is.
 */
import { mintLocalToken } from '../../lambdas/local/local-issuer.ts';

/** Who a principal is, with its bearer token. */
export interface PrincipalIdentity {
  tenant: string;
  sub: string;
  authorization: string;
}

/** Long enough for the longest full run. */
const TOKEN_TTL_SECONDS = 4 * 3600;

const tenantOf = (index: number): string => `bench-tenant-${index}`;

const mint = async (
  dataDir: string,
  tenant: string,
  sub: string,
  groups?: readonly string[],
): Promise<PrincipalIdentity> => {
  const token = await mintLocalToken(dataDir, { tenant, sub, ttlSeconds: TOKEN_TTL_SECONDS, groups });
  return { tenant, sub, authorization: `Bearer ${token}` };
};

/** One token per principal, principals dealt round-robin over the tenants; `subPrefix` names a set of its own. */
export const mintIdentities = async (
  dataDir: string,
  options: { tenants: number; principals: number; subPrefix?: string },
): Promise<PrincipalIdentity[]> => {
  const identities: PrincipalIdentity[] = [];
  const prefix = options.subPrefix ?? 'agent';
  for (let index = 0; index < options.principals; index++)
    identities.push(
      await mint(dataDir, tenantOf(index % options.tenants), `${prefix}-${String(index).padStart(4, '0')}`),
    );
  return identities;
};

/** One `org:admin` per tenant, to set the organisation's guardrails. */
export const mintOrgAdmins = async (dataDir: string, tenants: number): Promise<PrincipalIdentity[]> => {
  const admins: PrincipalIdentity[] = [];
  for (let index = 0; index < tenants; index++)
    admins.push(await mint(dataDir, tenantOf(index), 'bench-org-admin', ['org:admin']));
  return admins;
};
