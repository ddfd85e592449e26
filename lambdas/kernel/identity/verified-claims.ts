import * as z from 'zod';
import { UnauthenticatedError } from './identity.errors.ts';

/** One shape for every token-derived identifier: no separators, no traversal, bounded length. */
export const SAFE_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

const MEMBERSHIP_GROUP = /^project:([A-Za-z0-9_-]{1,64}):([a-z][a-z-]{0,31})$/;
const ORG_ADMIN_GROUP = 'org:admin';

/** The documented group names: `project:{projectId}:{role}` and `org:admin`. Nothing else may be in a token. */
export const isMemoryHubGroupName = (name: unknown): name is string =>
  typeof name === 'string' && (name === ORG_ADMIN_GROUP || MEMBERSHIP_GROUP.test(name));

/** API Gateway's rendering of an array claim for a Lambda function: the elements, one space apart, in brackets. */
const AUTHORIZER_LIST = /^\[(.*)\]$/s;

/**
 * `cognito:groups` as the list it is. Cognito and the local issuer put a JSON array in the token; API
 * Gateway's HTTP API authorizer hands the Lambda function every claim as a string, an array as `[a b c]`
 * (observed; the format is not documented beyond "claims"). That string is split on single spaces only —
 * never on commas — and since no documented group name holds a space or a bracket, a split that yields a
 * name outside the grammar (`[x org:admin]` from a group named `x org:admin`) refuses the token instead
 * of granting what the fragments spell. Undefined when the claim is in neither form.
 */
const groupNamesOf = (claim: unknown): readonly unknown[] | undefined => {
  if (claim === undefined) return [];
  if (Array.isArray(claim)) return claim;
  if (typeof claim !== 'string') return undefined;
  const list = AUTHORIZER_LIST.exec(claim)?.[1];
  if (list === undefined) return undefined;
  return list === '' ? [] : list.split(' ');
};

/**
 * Every group must follow the documented names, or the whole token is refused. Ignoring the odd name
 * would be enough for the JSON array, but not for the string form: there, a name holding a space arrives
 * as fragments, and only refusing a token with any fragment outside the grammar keeps those fragments
 * from being read as groups. The pre-token-generation trigger refuses such tokens in AWS before they are
 * issued, so an honest token never meets this.
 */
const groupsClaim = z
  .unknown()
  .optional()
  .transform((claim, context): string[] => {
    const names = groupNamesOf(claim);
    if (names?.every(isMemoryHubGroupName)) return [...names];
    context.addIssue({ code: 'custom', message: 'groups outside the documented names' });
    return z.NEVER;
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
      const match = MEMBERSHIP_GROUP.exec(group);
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
 * server's JWKS verifier locally). A group outside `project:{id}:{role}` and `org:admin` refuses the token.
 */
export const readVerifiedClaims = (claims: unknown): VerifiedClaims => {
  const parsed = VerifiedClaimsSchema.safeParse(claims);
  if (!parsed.success) {
    const groupsRefused = parsed.error.issues.some((issue) => issue.path[0] === 'cognito:groups');
    throw new UnauthenticatedError(
      groupsRefused
        ? 'The token names a group outside the documented names (project:{id}:{role}, org:admin)'
        : 'The token lacks the claims this service needs (sub, custom:tenant, client_id)',
    );
  }
  return parsed.data;
};
