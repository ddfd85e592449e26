import { Match } from 'aws-cdk-lib/assertions';
import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as preTokenGeneration } from '../../lambdas/app/pre-token-generation.lambda.ts';
import { type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

describe('Construct: Identity', () => {
  let synthesized: SynthesizedApp;

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp();
  });
  afterAll(() => synthesized.dispose());

  it('creates a pool where only administrators create users, each with an immutable tenant', () => {
    // Assess
    synthesized.template.resourceCountIs('AWS::Cognito::UserPool', 1);
    synthesized.template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Schema: Match.arrayWith([Match.objectLike({ Name: 'tenant', AttributeDataType: 'String', Mutable: false })]),
      DeletionProtection: 'ACTIVE',
    });
  });

  it('is on a feature plan that can customise access tokens', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::Cognito::UserPool', {
      UserPoolTier: Match.stringLikeRegexp('^(ESSENTIALS|PLUS)$'),
    });
  });

  it('declares the memory-hub resource server with read and write scopes', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
      Identifier: 'memory-hub',
      Scopes: Match.arrayWith([
        Match.objectLike({ ScopeName: 'memory.read' }),
        Match.objectLike({ ScopeName: 'memory.write' }),
      ]),
    });
  });

  it('lets the agent-app client sign in with SRP (or the IAM-guarded admin flow), refresh, and request the memory scopes', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ClientName: 'agent-app',
      GenerateSecret: false,
      ExplicitAuthFlows: Match.arrayEquals([
        'ALLOW_ADMIN_USER_PASSWORD_AUTH',
        'ALLOW_USER_SRP_AUTH',
        'ALLOW_REFRESH_TOKEN_AUTH',
      ]),
      PreventUserExistenceErrors: 'ENABLED',
      AllowedOAuthScopes: Match.arrayWith([
        { 'Fn::Join': ['', [Match.anyValue(), '/memory.read']] },
        { 'Fn::Join': ['', [Match.anyValue(), '/memory.write']] },
      ]),
    });
  });

  it('runs the pre-token-generation trigger with event version V2_0', () => {
    // Prepare
    const triggerFunctions = synthesized.template.findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('custom:tenant') },
    });
    const [triggerLogicalId] = Object.keys(triggerFunctions);

    // Assess
    expect(triggerLogicalId).toBeDefined();
    synthesized.template.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: {
        PreTokenGenerationConfig: { LambdaArn: { 'Fn::GetAtt': [triggerLogicalId, 'Arn'] }, LambdaVersion: 'V2_0' },
      },
    });
    synthesized.template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [triggerLogicalId, 'Arn'] },
      Principal: 'cognito-idp.amazonaws.com',
    });
  });
});

describe('Function: pre-token-generation handler', () => {
  const eventWith = (
    userAttributes: Record<string, string>,
    claimsAndScopeOverrideDetails: PreTokenGenerationV2TriggerEvent['response']['claimsAndScopeOverrideDetails'] = {},
  ): PreTokenGenerationV2TriggerEvent => ({
    version: '2',
    triggerSource: 'TokenGeneration_Authentication',
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_example',
    userName: 'agent-1',
    callerContext: { awsSdkVersion: 'aws-sdk-js-3', clientId: 'client-1' },
    request: { userAttributes, groupConfiguration: { groupsToOverride: ['project:apollo:member'] } },
    response: { claimsAndScopeOverrideDetails },
  });

  it('copies custom:tenant into the access token claims', async () => {
    // Prepare
    const event = eventWith({ sub: 'user-1', 'custom:tenant': 'acme' });

    // Act
    const result = await preTokenGeneration(event);

    // Assess
    expect(result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride).toEqual({
      'custom:tenant': 'acme',
    });
  });

  it('keeps overrides that are already there', async () => {
    // Prepare
    const event = eventWith(
      { 'custom:tenant': 'acme' },
      {
        idTokenGeneration: { claimsToSuppress: ['email'] },
        accessTokenGeneration: { claimsToAddOrOverride: { other: 'x' }, scopesToSuppress: ['phone'] },
      },
    );

    // Act
    const result = await preTokenGeneration(event);

    // Assess
    expect(result.response.claimsAndScopeOverrideDetails).toEqual({
      idTokenGeneration: { claimsToSuppress: ['email'] },
      accessTokenGeneration: {
        claimsToAddOrOverride: { other: 'x', 'custom:tenant': 'acme' },
        scopesToSuppress: ['phone'],
      },
    });
  });

  it('accepts the null overrides Cognito sends when no other trigger set any', async () => {
    // Prepare
    const event = eventWith({ 'custom:tenant': 'acme' });
    (event.response as { claimsAndScopeOverrideDetails: unknown }).claimsAndScopeOverrideDetails = null;

    // Act
    const result = await preTokenGeneration(event);

    // Assess
    expect(result.response.claimsAndScopeOverrideDetails).toEqual({
      accessTokenGeneration: { claimsToAddOrOverride: { 'custom:tenant': 'acme' } },
    });
  });

  it.each<Record<string, string>>([{}, { 'custom:tenant': '' }, { 'custom:tenant': '  ' }])(
    'refuses a token to a user without a tenant (%j)',
    async (userAttributes) => {
      // Prepare
      const event = eventWith(userAttributes);

      // Act & Assess
      await expect(preTokenGeneration(event)).rejects.toThrow(/no tenant/);
    },
  );
});
