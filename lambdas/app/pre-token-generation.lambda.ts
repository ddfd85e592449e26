import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';
import * as z from 'zod';
import type { ParameterReader } from '../adapters/config/parameter-reader.ts';
import { parametersExtensionClient } from '../adapters/config/parameters-extension-client.ts';
import { isMemoryHubScope } from '../kernel/identity/oauth-scopes.ts';
import { isMemoryHubGroupName } from '../kernel/identity/verified-claims.ts';

/** The user attribute set by an administrator at user creation (immutable) and the claim API Gateway forwards. */
const TENANT_CLAIM = 'custom:tenant';
/** The environment variable naming the SSM parameter of the API clients' scopes (set by the Identity construct). */
const CLIENT_SCOPES_PARAMETER_ENV = 'MEMORY_HUB_API_CLIENTS_PARAMETER';
/** The scope Cognito gives a token from its API sign-ins (SRP, admin password, refresh), and OAuth flows only on request. */
const COGNITO_API_SIGN_IN_SCOPE = 'aws.cognito.signin.user.admin';
/** How long one execution environment trusts the client scopes it read: a client's scopes change with a deployment. */
const CLIENT_SCOPES_TTL_MS = 300_000;

/** The memory-hub scopes each app client of the API may hold, by client id. */
export type ClientScopes = ReadonlyMap<string, readonly string[]>;

const ClientScopesDocument = z.array(
  z.object({ client: z.string().min(1), scopes: z.array(z.string().refine(isMemoryHubScope)) }).strict(),
);

export interface PreTokenGenerationOptions {
  /** The scopes of every API client; read from SSM in AWS, given by tests. */
  readonly clientScopes: () => Promise<ClientScopes>;
}

/**
 * Cognito pre-token-generation trigger (event version V2_0). Cognito shows a thrown error's text to the
 * caller instead of a token; each names no user and no value.
 *
 * - The tenant: Cognito copies custom attributes into ID tokens only; the API authorises with access
 *   tokens, so `custom:tenant` is copied into the access token. A user without one gets no token.
 * - The groups: a user in a group outside `project:{id}:{role}` and `org:admin` gets no token. The API
 *   reads groups from the authorizer's `[a b]` string, where a name holding a space or comma cannot be
 *   told from several names; refusing such names here, where they are still a list, keeps that string exact.
 * - The scopes: tokens from Cognito's API sign-ins (SRP, admin password, refresh) carry no custom
 *   scopes, so the scopes the calling app client is allowed are added to them; every route requires one.
 *   OAuth flows already carry the scopes they asked for and were allowed, and are left as they are.
 */
export const createPreTokenGenerationHandler =
  (options: PreTokenGenerationOptions) =>
  async (event: PreTokenGenerationV2TriggerEvent): Promise<PreTokenGenerationV2TriggerEvent> => {
    const tenant = event.request.userAttributes[TENANT_CLAIM];
    if (tenant === undefined || tenant.trim() === '') {
      throw new Error('The user has no tenant; an administrator must set custom:tenant.');
    }
    if (!(event.request.groupConfiguration?.groupsToOverride ?? []).every(isMemoryHubGroupName)) {
      throw new Error('The user is in a group whose name is not project:{id}:{role} or org:admin.');
    }
    const scopesToAdd = await scopesToAddFor(event, options);
    const overrides = event.response.claimsAndScopeOverrideDetails ?? {};
    event.response.claimsAndScopeOverrideDetails = {
      ...overrides,
      accessTokenGeneration: {
        ...overrides.accessTokenGeneration,
        claimsToAddOrOverride: {
          ...overrides.accessTokenGeneration?.claimsToAddOrOverride,
          [TENANT_CLAIM]: tenant,
        },
        ...(scopesToAdd.length > 0 && {
          scopesToAdd: [...(overrides.accessTokenGeneration?.scopesToAdd ?? []), ...scopesToAdd],
        }),
      },
    };
    return event;
  };

const scopesToAddFor = async (
  event: PreTokenGenerationV2TriggerEvent,
  options: PreTokenGenerationOptions,
): Promise<readonly string[]> => {
  const requested = event.request.scopes ?? [];
  if (!requested.includes(COGNITO_API_SIGN_IN_SCOPE)) return [];
  let clientScopes: ClientScopes;
  try {
    clientScopes = await options.clientScopes();
  } catch (error) {
    throw new Error('The API client scopes cannot be read; no token is issued. Try again shortly.', { cause: error });
  }
  return (clientScopes.get(event.callerContext.clientId) ?? []).filter((scope) => !requested.includes(scope));
};

/**
 * The client scopes from the SSM parameter (through the Parameters and Secrets extension in AWS), read at most once
 * per TTL; the last good value outlives a failed read. The extension's cache is off, so the TTL is this one alone.
 */
export const parameterClientScopes = (
  parameters: ParameterReader,
  parameterName: string | undefined,
): (() => Promise<ClientScopes>) => {
  let known: { scopes: ClientScopes; readAt: number } | undefined;
  return async () => {
    if (parameterName === undefined) throw new Error(`${CLIENT_SCOPES_PARAMETER_ENV} is not set`);
    if (known && Date.now() - known.readAt < CLIENT_SCOPES_TTL_MS) return known.scopes;
    try {
      const document = ClientScopesDocument.parse(JSON.parse(await parameters.readParameter(parameterName)));
      known = { scopes: new Map(document.map(({ client, scopes }) => [client, scopes])), readAt: Date.now() };
    } catch (error) {
      if (known === undefined) throw error;
    }
    return known.scopes;
  };
};

export const handler = createPreTokenGenerationHandler({
  clientScopes: parameterClientScopes(parametersExtensionClient(process.env), process.env[CLIENT_SCOPES_PARAMETER_ENV]),
});
