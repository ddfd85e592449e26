import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';

/** The user attribute set by an administrator at user creation (immutable) and the claim API Gateway forwards. */
const TENANT_CLAIM = 'custom:tenant';

/**
 * Cognito pre-token-generation trigger (event version V2_0).
 *
 * Cognito copies custom attributes into ID tokens only; the API authorises with access tokens, so the
 * tenant is copied into the access token here. A user without a tenant gets no token at all: failing
 * here is the only way to keep a tenant-less token from ever reaching the API.
 */
export const handler = async (event: PreTokenGenerationV2TriggerEvent): Promise<PreTokenGenerationV2TriggerEvent> => {
  const tenant = event.request.userAttributes[TENANT_CLAIM];
  if (tenant === undefined || tenant.trim() === '') {
    // Cognito shows this text to the caller; it names no user and no value.
    throw new Error('The user has no tenant; an administrator must set custom:tenant.');
  }
  const overrides = event.response.claimsAndScopeOverrideDetails ?? {};
  event.response.claimsAndScopeOverrideDetails = {
    ...overrides,
    accessTokenGeneration: {
      ...overrides.accessTokenGeneration,
      claimsToAddOrOverride: {
        ...overrides.accessTokenGeneration?.claimsToAddOrOverride,
        [TENANT_CLAIM]: tenant,
      },
    },
  };
  return event;
};
