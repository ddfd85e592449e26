import { AsyncLocalStorage } from 'node:async_hooks';
import type { BranchKeyStoreNode, EncryptedDataKey, KeyringNode, NodeMaterialsManager } from '@aws-crypto/client-node';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMS, KMSClientConfig } from '@aws-sdk/client-kms';
import type { ContentCipher, EncryptionContext } from '../../kernel/crypto/content-cipher.port.ts';
import { type KeyScope, keyScopeOf, type ScopeKeyDirectory } from '../../kernel/crypto/key-scope.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import { AWS_CLIENT_DEFAULTS } from '../aws-client-defaults.ts';
import { dependencyUnavailable, isRetryableAwsError, translateAwsError } from '../aws-service-errors.ts';
import { BranchKeyCreator } from './branch-key-creator.ts';
import { BranchKeyIds, NAMING_BRANCH_KEY_ID } from './branch-key-ids.ts';
import { CachingContentCipher } from './caching-content-cipher.ts';
import { type EncryptionSdk, loadEncryptionSdk } from './encryption-sdk.ts';
import { type CipherKeys, EncryptionSdkCipher, SDK_CONTEXT_KEYS } from './encryption-sdk-cipher.ts';

/**
 * How long a branch key, once KMS has unwrapped it, is used from memory before it is read and unwrapped again:
 * the bound on how long a process keeps encrypting and decrypting after the customer-managed key is disabled or
 * a branch key destroyed, against one KMS Decrypt per scope (and direction) per process per period.
 */
export const BRANCH_KEY_CACHE_SECONDS = { default: 300, min: 1, max: 3600 } as const;

export interface HierarchicalKeysOptions {
  /** The tenant's customer-managed key: it wraps every branch key. A key ARN (not an alias). */
  readonly keyArn: string;
  readonly keyStore: {
    readonly tableName: string;
    /** Bound into every branch key's encryption context; stays the same when the table is restored under another name. */
    readonly logicalName: string;
    /** Reaches the key store's table; its requests to that table are counted and read strongly consistent. */
    readonly client: DynamoDBClient;
  };
  /** The KMS client's configuration: local mode's in-process transport, a test's endpoint; the service's defaults otherwise. */
  readonly kms?: { readonly config?: KMSClientConfig };
  /** @default BRANCH_KEY_CACHE_SECONDS.default */
  readonly cacheSeconds?: number;
  /**
   * Decryption only: the keyring of the cipher before branch keys (one KMS data key per record in AWS, the raw
   * local key locally), so that what it wrote stays readable. Nothing is encrypted with it any more.
   */
  readonly legacy?: (parts: { readonly sdk: EncryptionSdk; readonly kms: KMS; readonly keyArn: string }) => KeyringNode;
  readonly metrics: Metrics;
}

/** Whether a call to the key service made for one request of the materials failed for want of the service. */
type Outage = { unavailable: boolean };

interface Prepared {
  readonly materials: NodeMaterialsManager;
  /** Branch key ids, once the naming key is unwrapped (created first on a deployment's very first write). */
  readonly ids: () => Promise<BranchKeyIds>;
  readonly ensure: (branchKeyId: string) => Promise<boolean>;
}

/** The provider id of a data key wrapped by a branch key (the hierarchical keyring's; other keyrings have their own). */
const HIERARCHY_PROVIDER_ID = 'aws-kms-hierarchy';

const KMS_OPERATIONS: Readonly<Record<string, Parameters<Metrics['keyOperation']>[0]>> = {
  DecryptCommand: 'decrypt-data-key',
  GenerateDataKeyWithoutPlaintextCommand: 'generate-data-key',
  ReEncryptCommand: 're-encrypt-data-key',
};

/**
 * The Encryption SDK's KMS hierarchical keyring: one branch key per key scope (principal, project,
 * organisation — `keyScopeOf`), kept in a `BranchKeyStoreNode` key store table and wrapped by the customer-managed
 * key. Each message's data key is wrapped by its scope's branch key in process, so KMS is called only when a
 * branch key is first used by a process or its cache period is over (a Decrypt), and when a scope's key is
 * created on its first write anywhere (`BranchKeyCreator`). The same code runs locally, against the embedded
 * engine and the local KMS (`LocalKms`).
 *
 * Branch key ids are HMACs of the scope (`BranchKeyIds`), so the key store shows no identifier. Destroying a
 * scope's branch key (every item of its id, `keyIdOf`) makes all its content unreadable: the crypto-shredding
 * seam. Throttled or unreachable KMS or key store calls become ServiceUnavailable, never a verdict on a ciphertext.
 */
export class HierarchicalKeys implements CipherKeys, ScopeKeyDirectory {
  readonly #options: HierarchicalKeysOptions;
  readonly #cacheSeconds: number;
  readonly #outages = new AsyncLocalStorage<Outage>();
  #prepared: Promise<Prepared> | undefined;

  constructor(options: HierarchicalKeysOptions) {
    const cacheSeconds = options.cacheSeconds ?? BRANCH_KEY_CACHE_SECONDS.default;
    if (
      !Number.isInteger(cacheSeconds) ||
      cacheSeconds < BRANCH_KEY_CACHE_SECONDS.min ||
      cacheSeconds > BRANCH_KEY_CACHE_SECONDS.max
    ) {
      throw new RangeError(
        `The branch key cache period must be ${BRANCH_KEY_CACHE_SECONDS.min} to ${BRANCH_KEY_CACHE_SECONDS.max} seconds`,
      );
    }
    this.#options = options;
    this.#cacheSeconds = cacheSeconds;
    this.#watchKeyStoreRequests();
  }

  /** How long a branch key is used from memory: every other cache of what it protects must not outlive it. */
  get cacheSeconds(): number {
    return this.#cacheSeconds;
  }

  async materials(): Promise<NodeMaterialsManager> {
    return (await this.#prepare()).materials;
  }

  async createMissingKey(context: EncryptionContext, failure: unknown): Promise<boolean> {
    const scope = keyScopeOf(context.tenant, context.namespace);
    if (!scope) return false;
    const { ids, ensure } = await this.#prepare();
    if (await ensure((await ids()).of(scope))) return true;
    // Found, not made: another process made it after this one's attempt failed for want of it.
    return isMissingBranchKey(failure);
  }

  async keyIdOf(scope: KeyScope): Promise<string> {
    return (await (await this.#prepare()).ids()).of(scope);
  }

  /** Built on first use, once; a failed attempt (the key service unavailable) is retried by the next use. */
  #prepare(): Promise<Prepared> {
    this.#prepared ??= this.#build().catch((error: unknown) => {
      this.#prepared = undefined;
      throw translateAwsError(error);
    });
    return this.#prepared;
  }

  async #build(): Promise<Prepared> {
    const { keyArn, keyStore: store, legacy } = this.#options;
    const sdk = await loadEncryptionSdk();
    const kms = this.#kmsClient(sdk);
    const keyStore = new sdk.BranchKeyStoreNode({
      logicalKeyStoreName: store.logicalName,
      storage: { ddbTableName: store.tableName, ddbClient: store.client },
      keyManagement: { kmsClient: kms },
      kmsConfiguration: { identifier: keyArn },
    });
    const creator = new BranchKeyCreator({
      keyArn,
      logicalKeyStoreName: store.logicalName,
      tableName: store.tableName,
      dynamoDb: store.client,
      kms,
    });
    const ensure = onePerKey(async (branchKeyId: string) => {
      if (await creator.exists(branchKeyId)) return false;
      await creator.create(branchKeyId);
      return true;
    });
    // The naming key is needed for branch-key-wrapped messages only: a function that only reads records written
    // before branch keys never asks for it (nor, on a deployment nobody has written to since, creates it).
    let ids: BranchKeyIds | undefined;
    let naming: Promise<BranchKeyIds> | undefined;
    const idsReady = (): Promise<BranchKeyIds> => {
      naming ??= activeBranchKey(keyStore, ensure, NAMING_BRANCH_KEY_ID).then(
        (material) => {
          ids = new BranchKeyIds(material.branchKey());
          return ids;
        },
        (error: unknown) => {
          naming = undefined;
          throw error;
        },
      );
      return naming;
    };
    const keyring = new sdk.KmsHierarchicalKeyRingNode({
      keyStore,
      branchKeyIdSupplier: {
        getBranchKeyId: (context) => {
          if (!ids) throw new Error('Branch key ids were asked for before the naming key was read');
          return ids.of(keyScopeOfSdkContext(context));
        },
      },
      cacheLimitTtl: this.#cacheSeconds,
    });
    const hierarchical = new sdk.NodeDefaultCryptographicMaterialsManager(keyring);
    const earlier = legacy && new sdk.NodeDefaultCryptographicMaterialsManager(legacy({ sdk, kms, keyArn }));
    const materials: NodeMaterialsManager = {
      getEncryptionMaterials: (request) =>
        this.#watching(async () => {
          await idsReady();
          return hierarchical.getEncryptionMaterials(request);
        }),
      decryptMaterials: (request) =>
        this.#watching(async () => {
          if (earlier && !request.encryptedDataKeys.some(wrappedByBranchKey)) return earlier.decryptMaterials(request);
          await idsReady();
          return hierarchical.decryptMaterials(request);
        }),
    };
    return { materials, ids: () => this.#watching(idsReady), ensure };
  }

  #kmsClient(sdk: EncryptionSdk): KMS {
    const { keyArn, kms: options, metrics } = this.#options;
    const client: KMS = new sdk.KMS({
      ...AWS_CLIENT_DEFAULTS,
      // The key's own region: a tenant's key may live in another region than the function.
      region: keyArn.split(':')[3],
      // The key store spec asks for this user agent, so the calls are told apart in CloudTrail.
      customUserAgent: 'aws-kms-hierarchy',
      ...options?.config,
    });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = KMS_OPERATIONS[context.commandName ?? ''];
        if (operation) metrics.keyOperation(operation);
        try {
          return await next(args);
        } catch (error) {
          this.#noteOutage(error);
          throw error;
        }
      },
      { step: 'initialize', name: 'memoryHubKeyServiceWatch', override: true },
    );
    return client;
  }

  /**
   * The key store's requests go through the service's own DynamoDB client (its connections are warm): on that
   * table only, reads are strongly consistent (a key created a moment ago is found), capacity is counted like
   * every storage request's, and a throttled or unreachable table is told from a missing key.
   */
  #watchKeyStoreRequests(): void {
    const { keyStore, metrics } = this.#options;
    keyStore.client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { TableName?: string; ConsistentRead?: boolean; ReturnConsumedCapacity?: string };
        if (input.TableName !== keyStore.tableName) return next(args);
        const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        if (operation === 'GetItem') input.ConsistentRead = true;
        input.ReturnConsumedCapacity = 'TOTAL';
        try {
          const result = await next(args);
          const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
          metrics.storageRequest({ operation, capacityUnits: consumed?.CapacityUnits ?? 0 });
          return result;
        } catch (error) {
          this.#noteOutage(error);
          throw error;
        }
      },
      { step: 'initialize', name: `memoryHubBranchKeyStore:${keyStore.tableName}`, override: true },
    );
  }

  #noteOutage(error: unknown): void {
    const watched = this.#outages.getStore();
    if (watched && isRetryableAwsError(error)) watched.unavailable = true;
  }

  /**
   * Runs `call` watched: the keyring folds every failure of a decryption into one plain Error, so whether a KMS or
   * key store call inside it failed for want of the service is noted as it happens, and the error becomes
   * ServiceUnavailable.
   */
  #watching<T>(call: () => Promise<T>): Promise<T> {
    const watched: Outage = { unavailable: false };
    return this.#outages.run(watched, async () => {
      try {
        return await call();
      } catch (error) {
        throw watched.unavailable ? dependencyUnavailable(error) : error;
      }
    });
  }
}

/** The key store's refusal of a branch key it holds no record of (the SDK's own words, as it throws them). */
const isMissingBranchKey = (error: unknown): boolean =>
  error instanceof Error && /^A branch key record with .* was not found in the DynamoDB table /.test(error.message);

/**
 * The content cipher of both modes: the Encryption SDK over `keys`, recent plaintexts kept in memory no longer
 * than the keyring keeps the branch keys that open them.
 */
export const contentCipherOver = (keys: HierarchicalKeys): ContentCipher =>
  new CachingContentCipher({ inner: new EncryptionSdkCipher({ keys }), maxAgeSeconds: keys.cacheSeconds });

/** The same cipher without the plaintext cache, for what its caller holds decoded itself (the search index). */
export const uncachedContentCipherOver = (keys: HierarchicalKeys): ContentCipher => new EncryptionSdkCipher({ keys });

/** The keyring of the per-record cipher before branch keys, for decryption: one KMS Decrypt per record. */
export const perRecordKmsKeyring = (parts: { sdk: EncryptionSdk; kms: KMS; keyArn: string }): KeyringNode =>
  new parts.sdk.KmsKeyringNode({ keyIds: [parts.keyArn], clientProvider: () => parts.kms });

/** The active version of a branch key, the key made first when it does not exist yet. */
const activeBranchKey = async (
  keyStore: BranchKeyStoreNode,
  ensure: (branchKeyId: string) => Promise<boolean>,
  branchKeyId: string,
): ReturnType<BranchKeyStoreNode['getActiveBranchKey']> => {
  try {
    return await keyStore.getActiveBranchKey(branchKeyId);
  } catch (error) {
    if (!(await ensure(branchKeyId))) throw error;
    return keyStore.getActiveBranchKey(branchKeyId);
  }
};

const keyScopeOfSdkContext = (context: Readonly<Record<string, string>>): KeyScope => {
  const scope = keyScopeOf(context[SDK_CONTEXT_KEYS.tenant] ?? '', context[SDK_CONTEXT_KEYS.namespace] ?? '');
  // Every namespace a Scope builds has a key scope; anything else is refused rather than given some key.
  if (!scope) throw new Error('The encryption context names no namespace of its tenant');
  return scope;
};

const wrappedByBranchKey = (dataKey: EncryptedDataKey): boolean => dataKey.providerId === HIERARCHY_PROVIDER_ID;

/** One creation per branch key at a time in this process: concurrent first uses wait for the same one. */
const onePerKey = (create: (branchKeyId: string) => Promise<boolean>) => {
  const inFlight = new Map<string, Promise<boolean>>();
  return (branchKeyId: string): Promise<boolean> => {
    let creating = inFlight.get(branchKeyId);
    if (!creating) {
      creating = create(branchKeyId).finally(() => inFlight.delete(branchKeyId));
      inFlight.set(branchKeyId, creating);
    }
    return creating;
  };
};
