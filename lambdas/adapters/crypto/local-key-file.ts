import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RawAesKeyringNode, RawAesWrappingSuiteIdentifier } from '@aws-crypto/client-node';

const KEY_BYTES = 32;

/**
 * The local stand-in for the tenant's KMS key: 32 random bytes in a file readable only by its owner,
 * created on the first local start; the local KMS derives its key from them (`LocalKms`). A key file that
 * others may read is refused rather than used.
 */
export const loadOrCreateLocalKey = async (path: string): Promise<Buffer> => {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const info = await stat(path);
  if ((info.mode & 0o077) !== 0) {
    throw new Error(`The local key file ${path} is readable by others; run: chmod 600 ${path}`);
  }
  const key = await readFile(path);
  if (key.length !== KEY_BYTES) throw new Error(`The local key file ${path} does not hold a ${KEY_BYTES}-byte key`);
  return key;
};

/**
 * The raw AES keyring local mode wrapped every record's data key with before branch keys: decryption of what it
 * wrote, and a fast keyring for storage tests. It zeroes the buffer it is given once it holds the key.
 */
export const localKeyring = (key: Buffer): RawAesKeyringNode =>
  new RawAesKeyringNode({
    keyNamespace: 'memory-hub-local',
    keyName: 'content-key',
    unencryptedMasterKey: key,
    wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
  });
