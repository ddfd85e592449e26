import { Client, type Connection } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

export interface OpenSearchClientOptions {
  /** The collection's endpoint, `https://{id}.{region}.aoss.amazonaws.com`. */
  readonly endpoint: string;
  readonly region: string;
  /** The function's role credentials (the same provider the AWS SDK clients sign with). */
  readonly credentials: AwsCredentialIdentityProvider;
  /** Connection to send through instead of HTTPS: the tests' stand-in. */
  readonly connection?: (signing: typeof Connection) => typeof Connection;
}

/** The official client, signing every request with SigV4 for OpenSearch Serverless (service `aoss`). */
export const openSearchClient = (options: OpenSearchClientOptions): Client => {
  const signer = AwsSigv4Signer({ region: options.region, service: 'aoss', getCredentials: options.credentials });
  return new Client({
    ...signer,
    ...(options.connection && { Connection: options.connection(signer.Connection) }),
    node: options.endpoint,
    // Lambda's own timeout bounds the call; a search that waits longer than this falls back to a scan.
    requestTimeout: 5_000,
    maxRetries: 2,
  });
};
