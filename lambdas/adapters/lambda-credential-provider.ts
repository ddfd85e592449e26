/**
 * The credentials every AWS SDK client in a Lambda bundle signs with. `lib/lambda-bundling.ts` puts this module
 * in place of the SDK's default chain (`@aws-sdk/credential-provider-node`), so it exports what the clients'
 * runtime configuration imports from there.
 *
 * Lambda hands a function its role's credentials in the environment; where a runtime serves them from a
 * container endpoint instead (`AWS_CONTAINER_CREDENTIALS_FULL_URI`), they are fetched from there and refreshed
 * five minutes before they expire, as the default chain would. The profile, SSO, web-identity and process
 * providers of the default chain, and the STS/SSO clients they bring (≈ 135 KB of every bundle), have nothing
 * to read in a Lambda sandbox. Local mode and the tests keep the default chain: only Lambda bundles are aliased.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';
import { chain, memoize } from '@smithy/core/config';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Logger } from '@smithy/types';

/** Credentials that expire are fetched again this long before they do (the default chain's margin). */
const REFRESH_BEFORE_EXPIRY_MS = 300_000;

/** What the clients pass the provider: their logger, among other configuration it does not need. */
export interface LambdaCredentialProviderInit {
  readonly logger?: Logger;
}

// The two predicates below are exported as `@aws-sdk/credential-provider-node` exports them, which this module stands in for.
export const credentialsWillNeedRefresh = (credentials: AwsCredentialIdentity | undefined): boolean =>
  credentials?.expiration !== undefined;

export const credentialsTreatedAsExpired = (credentials: AwsCredentialIdentity | undefined): boolean =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < REFRESH_BEFORE_EXPIRY_MS;

/** The environment's credentials, else the container endpoint's; remembered until they are due for refresh. */
export const defaultProvider = (init: LambdaCredentialProviderInit = {}): AwsCredentialIdentityProvider =>
  memoize(
    // `fromHttp` refuses at once when no endpoint is configured: built only when the environment has none.
    chain(fromEnv(init), () => fromHttp(init)()),
    credentialsTreatedAsExpired,
    credentialsWillNeedRefresh,
  );
