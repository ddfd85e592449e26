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
import { ServiceUnavailableError } from '../../kernel/errors/domain-error.ts';
import { AWS_CLIENT_DEFAULTS } from '../aws-client-defaults.ts';
import { translateAwsError } from '../aws-service-errors.ts';

/** Runs one decryption and says whether the key service, not the ciphertext, is why it failed. */
export interface KeyServiceWatch {
  /** Rethrows the operation's error, as a ServiceUnavailableError when a call to the key service failed for want of it. */
  during<T>(operation: () => Promise<T>): Promise<T>;
}

export interface KmsKeysOptions {
  /** The tenant's customer-managed key: every data key is generated under it. */
  readonly keyArn: string;
  /** Last touches to each KMS client the keyring makes: the tracer's capture, a test's endpoint. */
  readonly client?: (client: KMS) => KMS;
  /** Replaces the client configuration (a test's endpoint and credentials); the service's defaults otherwise. */
  readonly clientConfig?: ConstructorParameters<typeof KMS>[0];
}

/**
 * The Encryption SDK's materials over the tenant's KMS key: a KMS keyring behind a caching materials manager
 * that never reuses a data key for a second message (the cache only spares the Decrypt of a key this process
 * just generated), and the watch that tells a throttled or unreachable KMS from a ciphertext it cannot open.
 */
export const kmsKeys = (options: KmsKeysOptions): { keys: NodeMaterialsManager; keyService: KeyServiceWatch } => {
  const outages = new AsyncLocalStorage<{ unavailable: boolean }>();
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
          if (watched && translateAwsError(error) instanceof ServiceUnavailableError) watched.unavailable = true;
          throw error;
        }
      },
      { step: 'initialize', name: 'memoryHubKeyServiceWatch' },
    );
    return client;
  };
  const keyring = new KmsKeyringNode({ generatorKeyId: options.keyArn, clientProvider: cacheClients(clientOf) });
  return {
    keys: new NodeCachingMaterialsManager({
      backingMaterials: keyring,
      cache: getLocalCryptographicMaterialsCache(1000),
      maxAge: 5 * 60 * 1000,
      maxMessagesEncrypted: 1,
    }),
    keyService: {
      during: (operation) => {
        const watched = { unavailable: false };
        return outages.run(watched, async () => {
          try {
            return await operation();
          } catch (error) {
            if (watched.unavailable) {
              throw new ServiceUnavailableError('A dependency is unavailable; retry shortly', 1, { cause: error });
            }
            throw error;
          }
        });
      },
    },
  };
};
