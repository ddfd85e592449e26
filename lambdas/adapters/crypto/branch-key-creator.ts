import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { KMS } from '@aws-sdk/client-kms';
import { BranchKeyStoreSchema } from './branch-key-store-table.ts';

export interface BranchKeyCreatorOptions {
  /** The customer-managed key every branch key is wrapped by. */
  readonly keyArn: string;
  /** Bound into every branch key's encryption context as `tablename`, as `BranchKeyStoreNode` expects. */
  readonly logicalKeyStoreName: string;
  readonly tableName: string;
  readonly dynamoDb: DynamoDBClient;
  readonly kms: KMS;
  readonly now?: () => Date;
}

const { partitionKey, sortKey, activeType, versionTypePrefix, beaconType } = BranchKeyStoreSchema;

/**
 * Creates branch keys in the key store's own item format, so the Encryption SDK's `BranchKeyStoreNode` and
 * the hierarchical keyring read them as if `createKey` had written them.
 *
 * Why not `BranchKeyStoreNode.createKey` (which exists in 5.0.2): it writes its three items in one
 * `TransactWriteItems`, which the embedded engine does not serve, and it would be a second code path for local
 * mode. This writer follows the same steps (key store spec, "CreateKey") with single-item conditional puts:
 *
 * 1. KMS `GenerateDataKeyWithoutPlaintext` under the version's context (the key never leaves KMS in clear);
 * 2. KMS `ReEncrypt` of that ciphertext to the active item's context (the same key, bound as `branch:ACTIVE`);
 * 3. KMS `GenerateDataKeyWithoutPlaintext` for the beacon key;
 * 4. put the version item, then the active item, then the beacon item, each only if absent.
 *
 * The version item goes first, so an active item never names a version that is not stored. Of two concurrent
 * first uses, exactly one active put succeeds; the other's version item stays behind unused (decrypt-only,
 * nothing was ever encrypted under it) and its caller uses the winner's key.
 */
export class BranchKeyCreator {
  readonly #options: BranchKeyCreatorOptions;
  readonly #now: () => Date;

  constructor(options: BranchKeyCreatorOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** Whether the branch key has an active version (a strongly consistent read: a key just created is seen). */
  async exists(branchKeyId: string): Promise<boolean> {
    const { Item } = await this.#options.dynamoDb.send(
      new GetItemCommand({
        TableName: this.#options.tableName,
        Key: { [partitionKey]: { S: branchKeyId }, [sortKey]: { S: activeType } },
        ProjectionExpression: '#type',
        ExpressionAttributeNames: { '#type': sortKey },
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  }

  /** Creates the branch key; `raced` when a concurrent first use created it first (its key is the one in use). */
  async create(branchKeyId: string): Promise<'created' | 'raced'> {
    const { keyArn, logicalKeyStoreName, kms } = this.#options;
    const versionContext: Record<string, string> = {
      [partitionKey]: branchKeyId,
      [sortKey]: `${versionTypePrefix}${randomUUID()}`,
      // The SDK's own format: ISO 8601 with microseconds.
      'create-time': this.#now().toISOString().replace('Z', '000Z'),
      tablename: logicalKeyStoreName,
      'kms-arn': keyArn,
      'hierarchy-version': '1',
    };
    const activeContext = { ...versionContext, version: versionContext[sortKey] as string, [sortKey]: activeType };
    const beaconContext = { ...versionContext, [sortKey]: beaconType };

    const version = await kms.generateDataKeyWithoutPlaintext({
      KeyId: keyArn,
      NumberOfBytes: 32,
      EncryptionContext: versionContext,
    });
    const active = await kms.reEncrypt({
      SourceKeyId: keyArn,
      SourceEncryptionContext: versionContext,
      CiphertextBlob: version.CiphertextBlob,
      DestinationKeyId: keyArn,
      DestinationEncryptionContext: activeContext,
    });
    const beacon = await kms.generateDataKeyWithoutPlaintext({
      KeyId: keyArn,
      NumberOfBytes: 32,
      EncryptionContext: beaconContext,
    });
    if (!version.CiphertextBlob || !active.CiphertextBlob || !beacon.CiphertextBlob) {
      throw new Error('KMS answered a branch key request without a ciphertext');
    }

    await this.#putIfAbsent(itemOf(versionContext, version.CiphertextBlob));
    if (!(await this.#putIfAbsent(itemOf(activeContext, active.CiphertextBlob)))) return 'raced';
    await this.#putIfAbsent(itemOf(beaconContext, beacon.CiphertextBlob));
    return 'created';
  }

  /** False when an item with the same key is already there. */
  async #putIfAbsent(item: Record<string, AttributeValue>): Promise<boolean> {
    try {
      await this.#options.dynamoDb.send(
        new PutItemCommand({
          TableName: this.#options.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': partitionKey },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** An item as the key store stores it: the context without `tablename`, `hierarchy-version` a number, `enc` the key. */
const itemOf = (context: Record<string, string>, ciphertext: Uint8Array): Record<string, AttributeValue> => {
  const item: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(context)) {
    if (name === 'tablename') continue;
    item[name] = name === 'hierarchy-version' ? { N: value } : { S: value };
  }
  item.enc = { B: ciphertext };
  return item;
};
