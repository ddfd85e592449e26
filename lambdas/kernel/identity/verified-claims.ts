import * as z from 'zod';
import { UnauthenticatedError } from './identity.errors.ts';

/** One shape for every token-derived identifier: no separators, no traversal, bounded length. */
export const SAFE_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

const membershipGroup = /^project:([A-Za-z0-9_-]{1,64}):([a-z][a-z-]{0,31})$/;
export const ORG_ADMIN_GROUP = 'org:admin';

/**
 * API Gateway's JWT authorizer hands array claims over as one string, "[a b c]"; Cognito and the local
 * issuer put them in the token as a JSON array. Both arrive here.
 */
const groupsClaim = z
  .union([z.array(z.string()), z.string()])
  .optional()
  .transform((groups): string[] => {
    if (groups === undefined) return [];
    if (Array.isArray(groups)) return groups;
    const trimmed = groups.trim().replace(/^\[/, '').replace(/\]$/, '');
    return trimmed.split(/[\s,]+/).filter((group) => group.length > 0);
  });

export interface ProjectMembership {
  projectId: string;
  role: string;
}

const VerifiedClaimsSchema = z
  .object({
    sub: z.string().regex(SAFE_TOKEN),
    'custom:tenant': z.string().regex(SAFE_TOKEN),
    client_id: z.string().regex(SAFE_TOKEN),
    'cognito:groups': groupsClaim,
  })
  .transform((claims) => {
    const memberships: ProjectMembership[] = [];
    for (const group of claims['cognito:groups']) {
      const match = membershipGroup.exec(group);
      if (match?.[1] && match[2]) memberships.push({ projectId: match[1], role: match[2] });
    }
    return {
      principal: claims.sub,
      tenant: claims['custom:tenant'],
      client: claims.client_id,
      memberships,
      orgAdmin: claims['cognito:groups'].includes(ORG_ADMIN_GROUP),
    };
  })
  .brand<'VerifiedClaims'>();

/** The identity a verified token proves; branded so that only `readVerifiedClaims` produces one. */
export type VerifiedClaims = z.infer<typeof VerifiedClaimsSchema>;

/**
 * The only door from a token to an identity. Call it with the claims of a token whose signature, issuer,
 * audience/client and expiry were already verified (by API Gateway's authorizer in AWS, by the local
 * server's JWKS verifier locally). Groups that do not follow the naming scheme are ignored, not trusted.
 */
export const readVerifiedClaims = (claims: unknown): VerifiedClaims => {
  const parsed = VerifiedClaimsSchema.safeParse(claims);
  if (!parsed.success) {
    throw new UnauthenticatedError('The token lacks the claims this service needs (sub, custom:tenant, client_id)');
  }
  return parsed.data;
};
