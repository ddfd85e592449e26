import { join } from 'node:path';
import { EncryptionSdkCipher } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { loadOrCreateLocalKey, localKeyring } from '../../lambdas/adapters/crypto/local-key-file.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';

/** The Encryption SDK cipher over the key file `file` in `folder` (created if missing), as local mode builds it. */
export const localKeyCipher = async (
  folder: string,
  file: string,
  metrics = new InMemoryMetrics(),
): Promise<EncryptionSdkCipher> =>
  new EncryptionSdkCipher({ keys: localKeyring(await loadOrCreateLocalKey(join(folder, file))), metrics });
