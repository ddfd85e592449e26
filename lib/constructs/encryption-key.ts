import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { type Alias, Key, type KeyProps, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface EncryptionKeyProps {
  /** Deployment stage; the alias is `alias/memory-hub/{stage}`. */
  readonly stage: string;
  /** Overrides for the key. Rotation cannot be turned off and the key is always symmetric. */
  readonly keyProps?: Omit<KeyProps, 'enableKeyRotation' | 'keySpec' | 'keyUsage' | 'alias'>;
}

/**
 * The tenant's customer-managed key: it encrypts the table at rest and is the KMS keyring of the
 * envelope encryption applied to record content before it reaches the table. Rotated yearly, retained
 * when the stack is deleted (data encrypted under it would otherwise become unreadable).
 */
export class EncryptionKey extends Construct {
  public readonly key: Key;
  public readonly alias: Alias;

  constructor(scope: Construct, id: string, props: EncryptionKeyProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: `Memory Hub ${props.stage}: table encryption and envelope encryption of record content`,
      removalPolicy: RemovalPolicy.RETAIN,
      pendingWindow: Duration.days(30),
      ...props.keyProps,
      enableKeyRotation: true,
      keySpec: KeySpec.SYMMETRIC_DEFAULT,
      keyUsage: KeyUsage.ENCRYPT_DECRYPT,
    });
    this.alias = this.key.addAlias(`alias/memory-hub/${props.stage}`);
  }
}
