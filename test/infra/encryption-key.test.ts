import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { EncryptionKey, type EncryptionKeyProps } from '../../lib/constructs/encryption-key.ts';
import { bareStack, type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

describe('Construct: EncryptionKey', () => {
  let synthesized: SynthesizedApp;

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp({ stage: 'test' });
  });
  afterAll(() => synthesized.dispose());

  it('creates one symmetric customer-managed key with yearly rotation, retained on stack deletion', () => {
    // Assess
    synthesized.template.resourceCountIs('AWS::KMS::Key', 1);
    synthesized.template.hasResource('AWS::KMS::Key', {
      Properties: Match.objectLike({
        EnableKeyRotation: true,
        KeySpec: 'SYMMETRIC_DEFAULT',
        KeyUsage: 'ENCRYPT_DECRYPT',
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('names the key alias/memory-hub/{stage}', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/memory-hub/test' });
  });

  it('keeps rotation on whatever key props it is given', () => {
    // Prepare
    const stack = bareStack();

    // Act
    new EncryptionKey(stack, 'EncryptionKey', {
      stage: 'qa',
      keyProps: { enableKeyRotation: false } as unknown as EncryptionKeyProps['keyProps'],
    });

    // Assess
    Template.fromStack(stack).hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    Template.fromStack(stack).hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/memory-hub/qa' });
  });
});
