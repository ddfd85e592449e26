import { AsyncLocalStorage } from 'node:async_hooks';
import {
  cacheClients,
  getClient,
  getLocalCryptographicMaterialsCache,
  KMS,
  KmsKeyringNode,
  NodeCachingMaterialsManager,
  type NodeMaterialsManager,
} from '@aws-crypto/client-node';
import { AWS_CLIENT_DEFAULTS } from '../aws-client-defaults.ts';
import { dependencyUnavailable, isRetryableAwsError } from '../aws-service-errors.ts';

export interface KmsKeysOptions {
  /** The tenant's customer-managed key: every data key is generated under it. */
  readonly keyArn: string;
  /** Last touches to each KMS client the keyring makes: the tracer's capture, a test's endpoint. */
  readonly client?: (client: KMS) => KMS;
  /** Replaces the client configuration (a test's endpoint and credentials); the service's defaults otherwise. */
  readonly clientConfig?: ConstructorParameters<typeof KMS>[0];
}

/** Whether a call to KMS made for one request of the materials manager failed for want of the service. */
type Outage = { unavailable: boolean };

/**
 * The Encryption SDK's materials over the tenant's KMS key: a KMS keyring behind a caching materials manager
 * that never reuses a data key for a second message (the cache only spares the Decrypt of a key this process
 * just generated), watched so that a throttled or unreachable KMS is told from a ciphertext it cannot open.
 */
export const kmsKeys = (options: KmsKeysOptions): { keys: NodeMaterialsManager } => {
  const outages = new AsyncLocalStorage<Outage>();
  const makeClient = getClient(KMS, options.clientConfig ?? { ...AWS_CLIENT_DEFAULTS });
  const clientOf = (region: string): KMS | false => {
    const made = makeClient(region);
    if (!made) return false;
    const client = options.client ? options.client(made) : made;
    // The keyring folds every KMS error of a decryption into one plain Error; the verdict is taken here.
    client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          const watched = outages.getStore();
          if (watched && isRetryableAwsError(error)) watched.unavailable = true;
          throw error;
        }
      },
      { step: 'initialize', name: 'memoryHubKeyServiceWatch' },
    );
    return client;
  };
  const keyring = new KmsKeyringNode({ generatorKeyId: options.keyArn, clientProvider: cacheClients(clientOf) });
  const cached = new NodeCachingMaterialsManager({
    backingMaterials: keyring,
    cache: getLocalCryptographicMaterialsCache(1000),
    maxAge: 5 * 60 * 1000,
    maxMessagesEncrypted: 1,
  });
  return {
    keys: {
      getEncryptionMaterials: (request) => watching(outages, () => cached.getEncryptionMaterials(request)),
      decryptMaterials: (request) => watching(outages, () => cached.decryptMaterials(request)),
    },
  };
};

/** Runs `call` watched: its error becomes ServiceUnavailable when a KMS call within it failed for want of the service. */
const watching = <T>(outages: AsyncLocalStorage<Outage>, call: () => Promise<T>): Promise<T> => {
  const watched: Outage = { unavailable: false };
  return outages.run(watched, async () => {
    try {
      return await call();
    } catch (error) {
      throw watched.unavailable ? dependencyUnavailable(error) : error;
    }
  });
};
