import { AwsSigv4Signer, type AwsSigv4SignerResponse } from '@opensearch-project/opensearch/aws-v3';
import { ConnectionPool } from '@opensearch-project/opensearch/lib/pool/index.js';
import SerializerExports from '@opensearch-project/opensearch/lib/Serializer.js';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { OpenSearchTransport } from './opensearch-search-index.ts';

/*
 * The official client's transport without the client: `Client` carries every endpoint of the API (≈ 250 KB of a
 * minified bundle) to build requests this adapter builds itself (opensearch-search-index.ts), so the transport is
 * assembled here from the package's own parts, with the options `lib/Client.js` gives its `Transport`. The signer
 * supplies the `Transport` and `Connection` classes (subclasses of `lib/Transport.js` and `lib/Connection.js`); the
 * pool and the serializer are deep imports, which the package's `exports` map opens with `"./*"` (its root entry
 * would load `lib/Client.js`, and with it the whole API). The file layout they name is not a documented API: the
 * package's version is pinned, and the tests build this transport, so an upgrade that moves them fails there.
 */

/**
 * `lib/Serializer.js` is CommonJS (`module.exports = Serializer`) while its declaration says `export default class`:
 * imported from an ES module, the default is the class itself, though TypeScript types it as `{ default: class }`.
 * If the package's declarations are ever corrected (`export =`), this stops compiling and can go.
 */
const commonJsDefault = <T>(exports: { readonly default: T }): T => exports as unknown as T;
const Serializer = commonJsDefault(SerializerExports);

type ConnectionClass = AwsSigv4SignerResponse['Connection'];

export interface OpenSearchTransportOptions {
  /** The collection's endpoint, `https://{id}.{region}.aoss.amazonaws.com`. */
  readonly endpoint: string;
  readonly region: string;
  /** The function's role credentials (the same provider the AWS SDK clients sign with). */
  readonly credentials: AwsCredentialIdentityProvider;
  /** Connection to send through instead of HTTPS, given the signing one: the tests' stand-in. */
  readonly connection?: (signing: ConnectionClass) => ConnectionClass;
}

/** Nobody listens to the transport's events (`Client` hands it an EventEmitter's `emit`). */
const noEvents = (): boolean => false;

/**
 * A request waits at most this long, and is tried at most twice: 4 s a request, so that a `candidates` call (two
 * sequential stages) fails within its 8 s deadline (CANDIDATES_DEADLINE_MS), well inside API Gateway's 29 s, and the
 * search still falls back to a scan. A search request of this index answers in tens of milliseconds when healthy.
 */
export const REQUEST_TIMEOUT_MS = 2_000;
export const MAX_RETRIES = 1;

/**
 * The transport `new Client({ ...AwsSigv4Signer(…), node, requestTimeout: 2_000, maxRetries: 1 })` would build:
 * SigV4 for OpenSearch Serverless (service `aoss`), its credentials fetched again before they expire (the signer's
 * `Transport`), one node, no sniffing, no compression.
 */
export const openSearchTransport = (options: OpenSearchTransportOptions): OpenSearchTransport => {
  const signer = AwsSigv4Signer({ region: options.region, service: 'aoss', getCredentials: options.credentials });
  const connectionPool = new ConnectionPool({
    Connection: options.connection ? options.connection(signer.Connection) : signer.Connection,
    emit: noEvents,
    pingTimeout: 3_000,
    resurrectStrategy: 'ping',
    sniffEnabled: false,
  });
  connectionPool.addConnection(options.endpoint);
  return new signer.Transport({
    emit: noEvents,
    connectionPool,
    serializer: new Serializer({ disablePrototypePoisoningProtection: false, enableLongNumeralSupport: false }),
    requestTimeout: REQUEST_TIMEOUT_MS,
    maxRetries: MAX_RETRIES,
    sniffEndpoint: '_nodes/_all/http',
    sniffOnStart: false,
    sniffOnConnectionFault: false,
    suggestCompression: false,
    headers: {},
    nodeSelector: 'round-robin',
    name: 'opensearch-js',
  });
};
