import { Match } from 'aws-cdk-lib/assertions';
import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPreTokenGenerationHandler,
  handler as deployedPreTokenGeneration,
} from '../../lambdas/app/pre-token-generation.lambda.ts';
import { API_CLIENT_SCOPES_ENV } from '../../lib/constructs/identity.ts';
import { type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

const READ = 'memory-hub/memory.read';
const WRITE = 'memory-hub/memory.write';
const ADMIN = 'memory-hub/memory.admin';

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

  it('declares the memory-hub resource server with read, write and admin scopes', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
      Identifier: 'memory-hub',
      Scopes: [
        Match.objectLike({ ScopeName: 'memory.read' }),
        Match.objectLike({ ScopeName: 'memory.write' }),
        Match.objectLike({ ScopeName: 'memory.admin' }),
      ],
    });
  });

  it.each([
    ['agent-app', ['/memory.read', '/memory.write']],
    ['reader-app', ['/memory.read']],
    ['operator-app', ['/memory.read', '/memory.write', '/memory.admin']],
  ])('allows the %s client exactly the scopes %j', (clientName, scopes) => {
    // Prepare
    const clients = Object.values(
      synthesized.template.findResources('AWS::Cognito::UserPoolClient', { Properties: { ClientName: clientName } }),
    );
    const allowed = (clients[0]?.Properties.AllowedOAuthScopes ?? []) as unknown[];

    // Assess
    expect(clients).toHaveLength(1);
    expect(allowed.filter((scope) => scope !== 'openid')).toEqual(
      scopes.map((scope) => ({ 'Fn::Join': ['', [expect.anything(), scope]] })),
    );
  });

  it('accepts tokens of every API client at the authorizer and tells the trigger which scopes each holds', () => {
    // Prepare
    const clientIds = Object.keys(synthesized.template.findResources('AWS::Cognito::UserPoolClient'));
    const [authorizer] = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Authorizer'));
    const parameters = synthesized.template.findResources('AWS::SSM::Parameter', {
      Properties: { Name: '/memory-hub/test/api-client-scopes' },
    });
    const value = JSON.stringify(Object.values(parameters)[0]?.Properties.Value);

    // Assess
    expect(authorizer?.Properties.JwtConfiguration.Audience).toEqual(clientIds.map((id) => ({ Ref: id })));
    expect(Object.keys(parameters)).toHaveLength(1);
    for (const id of clientIds) expect(value).toContain(`{"Ref":"${id}"}`);
    expect(value).toContain(ADMIN);
  });

  it('lets the trigger read the client scopes (named, not referenced: the pool depends on the trigger)', () => {
    // Prepare
    const triggers = synthesized.template.findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('custom:tenant') },
    });
    const [trigger] = Object.values(triggers);
    const roleLogicalId = trigger?.Properties.Role['Fn::GetAtt'][0] as string;
    const policies = Object.values(
      synthesized.template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: roleLogicalId }] },
      }),
    );
    const statements = policies.flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );

    // Assess
    expect(trigger?.Properties.Environment.Variables[API_CLIENT_SCOPES_ENV]).toBe('/memory-hub/test/api-client-scopes');
    expect(
      statements.some(
        (statement) =>
          [statement.Action].flat().includes('ssm:GetParameter') &&
          JSON.stringify(statement.Resource).includes(':parameter/memory-hub/test/api-client-scopes'),
      ),
    ).toBe(true);
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
  /** A trigger that knows no API client, as the tests of the tenant claim need. */
  const preTokenGeneration = createPreTokenGenerationHandler({ clientScopes: async () => new Map() });
  const eventWith = (
    userAttributes: Record<string, string>,
    claimsAndScopeOverrideDetails: PreTokenGenerationV2TriggerEvent['response']['claimsAndScopeOverrideDetails'] = {},
    request: Partial<PreTokenGenerationV2TriggerEvent['request']> = {},
    clientId = 'client-1',
  ): PreTokenGenerationV2TriggerEvent => ({
    version: '2',
    triggerSource: 'TokenGeneration_Authentication',
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_example',
    userName: 'agent-1',
    callerContext: { awsSdkVersion: 'aws-sdk-js-3', clientId },
    request: {
      userAttributes,
      groupConfiguration: { groupsToOverride: ['project:apollo:member'] },
      scopes: ['aws.cognito.signin.user.admin'],
      ...request,
    },
    response: { claimsAndScopeOverrideDetails },
  });

  it('issues no token from a deployed trigger that was not told where the client scopes are', async () => {
    // Prepare
    const event = eventWith({ 'custom:tenant': 'acme' });

    // Act & Assess
    expect(process.env[API_CLIENT_SCOPES_ENV]).toBeUndefined();
    await expect(deployedPreTokenGeneration(event)).rejects.toThrow(/scopes/);
  });

  describe('Scopes', () => {
    const clientScopes = async () =>
      new Map([
        ['reader-client', [READ]],
        ['operator-client', [READ, WRITE, ADMIN]],
      ]);

    it.each([
      ['reader-client', [READ]],
      ['operator-client', [READ, WRITE, ADMIN]],
    ])(
      'adds the scopes %s holds to a token from an API sign-in (SRP, admin password, refresh)',
      async (client, scopes) => {
        // Prepare
        const trigger = createPreTokenGenerationHandler({ clientScopes });
        const event = eventWith({ 'custom:tenant': 'acme' }, {}, {}, client);

        // Act
        const result = await trigger(event);

        // Assess
        expect(result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.scopesToAdd).toEqual(scopes);
      },
    );

    it('adds nothing to a token from an OAuth flow, which carries the scopes it asked for and was allowed', async () => {
      // Prepare
      const trigger = createPreTokenGenerationHandler({ clientScopes });
      const event = eventWith({ 'custom:tenant': 'acme' }, {}, { scopes: ['openid', READ] }, 'operator-client');

      // Act
      const result = await trigger(event);

      // Assess
      expect(result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.scopesToAdd).toBeUndefined();
    });

    it('adds nothing for an app client the API does not accept', async () => {
      // Prepare
      const trigger = createPreTokenGenerationHandler({ clientScopes });

      // Act
      const result = await trigger(eventWith({ 'custom:tenant': 'acme' }, {}, {}, 'some-other-app'));

      // Assess
      expect(result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.scopesToAdd).toBeUndefined();
    });

    it('issues no token when the client scopes cannot be read, rather than one without its scopes', async () => {
      // Prepare
      const trigger = createPreTokenGenerationHandler({
        clientScopes: () => Promise.reject(new Error('ThrottlingException')),
      });

      // Act & Assess
      await expect(trigger(eventWith({ 'custom:tenant': 'acme' }))).rejects.toThrow(/scopes/);
    });
  });

  describe('Groups', () => {
    it.each(['project:p7:member,org:admin', 'project:p7:member org:admin', 'Admins', 'org:owner'])(
      'issues no token to a user in the group %j, whose name is outside project:{id}:{role} and org:admin',
      async (group) => {
        // Prepare
        const event = eventWith(
          { 'custom:tenant': 'acme' },
          {},
          { groupConfiguration: { groupsToOverride: ['project:p7:member', group] } },
        );

        // Act & Assess
        await expect(preTokenGeneration(event)).rejects.toThrow(/group/);
      },
    );

    it('issues a token to a user in documented groups only', async () => {
      // Prepare
      const event = eventWith(
        { 'custom:tenant': 'acme' },
        {},
        { groupConfiguration: { groupsToOverride: ['project:p7:member', 'org:admin'] } },
      );

      // Act & Assess
      await expect(preTokenGeneration(event)).resolves.toBeDefined();
    });
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
