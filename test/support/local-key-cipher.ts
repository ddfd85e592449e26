import { join } from 'node:path';
import { EncryptionSdkCipher } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { loadOrCreateLocalKey, localKeyring } from '../../lambdas/adapters/crypto/local-key-file.ts';

/**
 * The Encryption SDK cipher over the raw AES key in the key file `file` in `folder` (created if missing): the
 * keyring local mode used before branch keys, and a fast cipher for storage tests that are not about keys.
 */
export const localKeyCipher = async (folder: string, file: string): Promise<EncryptionSdkCipher> =>
  new EncryptionSdkCipher({ keys: localKeyring(await loadOrCreateLocalKey(join(folder, file))) });
