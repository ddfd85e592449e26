import { Arn, ArnFormat, Aws, CfnRule, Duration, Fn, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { type Alias, type IKey, Key, type KeyProps, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/**
 * Every key of the encryption context the service binds record content to starts with this (tenant,
 * namespace, record: `SDK_CONTEXT_KEYS` in lambdas/adapters/crypto/encryption-sdk-cipher.ts; a test compares
 * the two); KMS sees it on every data-key call.
 */
export const CONTENT_CONTEXT_KEY_PREFIX = 'memory-hub:';
/** The context key every content data key carries: a call without it is not the service's. */
export const CONTENT_CONTEXT_TENANT_KEY = `${CONTENT_CONTEXT_KEY_PREFIX}tenant`;

export interface EncryptionKeyProps {
  /** Deployment stage; a created key's alias is `alias/memory-hub/{stage}`. */
  readonly stage: string;
  /**
   * The ARN of the tenant's own customer-managed key, to use instead of creating one (residency: the data stays
   * under a key the tenant controls, possibly in another account). It must be a symmetric encryption key in the
   * stack's region, and its key policy must let this account's IAM policies use it (README, "Bringing your own
   * key"). The stack then creates no key and no alias.
   * @default a key created, rotated and retained by the stack
   */
  readonly existingKeyArn?: string;
  /** Overrides for a created key. Rotation cannot be turned off and the key is always symmetric. */
  readonly keyProps?: Omit<KeyProps, 'enableKeyRotation' | 'keySpec' | 'keyUsage' | 'alias'>;
}

/**
 * The tenant's customer-managed key: it encrypts the table at rest and wraps the data keys of the envelope
 * encryption applied to record content before it reaches the table. Created (rotated yearly, retained when the
 * stack is deleted: data encrypted under it would otherwise become unreadable) or brought by the tenant.
 *
 * A created key's policy holds one statement, the default one that lets the account's IAM policies decide
 * (IAM delegation); every use is granted in a function's own policy by the two grants below and the branch key
 * store's, each only what the function calls and each on a condition.
 */
export class EncryptionKey extends Construct {
  public readonly key: IKey;
  /** `alias/memory-hub/{stage}` of a created key; a tenant's own key keeps the aliases its owner gave it. */
  public readonly alias: Alias | undefined;

  constructor(scope: Construct, id: string, props: EncryptionKeyProps) {
    super(scope, id);
    if (props.existingKeyArn !== undefined) {
      this.requireKeyInStackRegion(props.existingKeyArn);
      this.key = Key.fromKeyArn(this, 'Key', props.existingKeyArn);
      this.alias = undefined;
    } else {
      const key = new Key(this, 'Key', {
        description: `Memory Hub ${props.stage}: table encryption and envelope encryption of record content`,
        removalPolicy: RemovalPolicy.RETAIN,
        pendingWindow: Duration.days(30),
        ...props.keyProps,
        enableKeyRotation: true,
        keySpec: KeySpec.SYMMETRIC_DEFAULT,
        keyUsage: KeyUsage.ENCRYPT_DECRYPT,
      });
      this.key = key;
      this.alias = key.addAlias(`alias/memory-hub/${props.stage}`);
    }
  }

  /**
   * Lets `grantee` use the table: DynamoDB decrypts the table's own key under this key on the caller's behalf
   * (and caches it for minutes), for reads and writes alike. `kms:ViaService` keeps the permission to calls
   * DynamoDB makes in this region. DynamoDB's background work (backups, TTL, streams) runs on the grant it
   * made when the table was created, not on these.
   */
  grantTableUse(grantee: IGrantable): Grant {
    const { region, urlSuffix } = Stack.of(this);
    return Grant.addToPrincipal({
      grantee,
      actions: ['kms:Decrypt', 'kms:DescribeKey'],
      resourceArns: [this.key.keyArn],
      conditions: {
        StringEquals: { 'kms:ViaService': `dynamodb.${region}.${urlSuffix}` },
      },
    });
  }

  /**
   * Lets `grantee` open the per-record data keys of content written before branch keys, and only under the
   * service's encryption context: every key of it `memory-hub:…`, the tenant's among them. Content is now
   * written under a scope's branch key (lib/constructs/branch-key-store.ts), so no role may make such a data
   * key any more (no `GenerateDataKey`): nothing can plant content outside the branch key that would shred it.
   */
  grantContentKeys(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: ['kms:Decrypt'],
      resourceArns: [this.key.keyArn],
      conditions: {
        'ForAllValues:StringLike': { 'kms:EncryptionContextKeys': `${CONTENT_CONTEXT_KEY_PREFIX}*` },
        'ForAnyValue:StringEquals': { 'kms:EncryptionContextKeys': CONTENT_CONTEXT_TENANT_KEY },
      },
    });
  }

  /**
   * A DynamoDB table can only be encrypted with a key of its own region. A stack pinned to a region checks it
   * now; an environment-agnostic template carries a rule that refuses to deploy anywhere but the key's region.
   */
  private requireKeyInStackRegion(keyArn: string): void {
    const keyRegion = keyRegionOf(keyArn);
    if (keyRegion === undefined) return;
    const stackRegion = Stack.of(this).region;
    if (!Token.isUnresolved(stackRegion)) {
      if (stackRegion !== keyRegion) {
        throw new Error(`${this.node.path}: the key is in ${keyRegion}, the stack in ${stackRegion}; they must match`);
      }
      return;
    }
    new CfnRule(this, 'KeyRegion', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, keyRegion),
          assertDescription: `The encryption key is in ${keyRegion}: deploy this stack in ${keyRegion}.`,
        },
      ],
    });
  }
}

/** The region of a key ARN given as text (undefined for a token); throws on anything but a key's ARN. */
function keyRegionOf(keyArn: string): string | undefined {
  if (Token.isUnresolved(keyArn)) return undefined;
  const refuse = () =>
    new Error(`"${keyArn}" is not the ARN of a KMS key (arn:aws:kms:{region}:{account}:key/{key id}); not an alias`);
  if (!keyArn.startsWith('arn:')) throw refuse();
  const parts = Arn.split(keyArn, ArnFormat.SLASH_RESOURCE_NAME);
  if (parts.service !== 'kms' || parts.resource !== 'key' || !parts.resourceName || !parts.region || !parts.account) {
    throw refuse();
  }
  return parts.region;
}
