import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  LambdaVersion,
  Mfa,
  OAuthScope,
  ResourceServerScope,
  StandardThreatProtectionMode,
  StringAttribute,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  UserPoolOperation,
  type UserPoolProps,
  type UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import { ParameterDataType, StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function.ts';

/** The tenant attribute: set by an administrator when the user is created, immutable afterwards. */
export const TENANT_ATTRIBUTE = 'tenant';
/** The claim the tenant appears as, in ID tokens natively and in access tokens through the trigger. */
export const TENANT_CLAIM = `custom:${TENANT_ATTRIBUTE}`;
export const RESOURCE_SERVER_IDENTIFIER = 'memory-hub';
/**
 * The scopes every route requires one of (`x-memory-hub.requiredScope` in the OpenAPI document; a test
 * checks each required scope is declared here). A scope says what a client may ask for; the caller's
 * groups still decide what it may do.
 */
export const MEMORY_SCOPES = {
  read: { name: 'memory.read', description: 'Read memory the caller is entitled to' },
  write: { name: 'memory.write', description: 'Record and change memory the caller is entitled to' },
  admin: {
    name: 'memory.admin',
    description: "Administer the caller's organisation or projects: guardrail changes, the audit trail, workflows",
  },
} as const;
export type MemoryScopeName = keyof typeof MEMORY_SCOPES;
/** The trigger's environment variable naming the parameter of the API clients' scopes. */
export const API_CLIENT_SCOPES_ENV = 'MEMORY_HUB_API_CLIENTS_PARAMETER';

/** An app client whose tokens the API accepts, and the scopes it may hold. */
export interface ApiClient {
  readonly client: UserPoolClient;
  readonly scopes: readonly MemoryScopeName[];
}

/** The Cognito pre-token-generation trigger's entry. */
export const PRE_TOKEN_GENERATION_ENTRY = fileURLToPath(
  new URL('../../lambdas/app/pre-token-generation.lambda.ts', import.meta.url),
);

export interface IdentityProps {
  /** Deployment stage; the pool is named `memory-hub-{stage}`. */
  readonly stage: string;
  /**
   * ESSENTIALS is the least a pool can have and still customise access tokens (the tenant claim). PLUS
   * adds threat protection (compromised credentials, adaptive authentication), which is then enforced.
   * @default FeaturePlan.ESSENTIALS
   */
  readonly featurePlan?: FeaturePlan.ESSENTIALS | FeaturePlan.PLUS;
  /**
   * Redirect URLs of the agent app for the OAuth authorization-code flow, once a hosted-login domain is
   * added to the pool. Agents that sign in with SRP do not use them.
   * @default ['http://localhost:8976/callback'] (a loopback redirect for a CLI login)
   */
  readonly agentAppCallbackUrls?: string[];
  /** Overrides for the user pool; sign-up, attributes, triggers and the feature plan are fixed here. */
  readonly userPoolProps?: Omit<
    UserPoolProps,
    | 'selfSignUpEnabled'
    | 'customAttributes'
    | 'lambdaTriggers'
    | 'featurePlan'
    | 'standardThreatProtectionMode'
    | 'advancedSecurityMode'
  >;
}

/**
 * Who may call the API, and as which tenant.
 *
 * - Users are created by administrators only (no self sign-up), each with the immutable `custom:tenant`
 *   attribute. Tokens carry `sub` (principal), `custom:tenant` (tenant), `cognito:groups` (memberships)
 *   and `client_id` (the agent application).
 * - Memberships are Cognito groups, created at run time by administrators and named
 *   `project:{projectId}:{role}` (e.g. `project:apollo:maintainer`) or `org:admin`. None are fixed here;
 *   a user in a group named otherwise gets no token.
 * - A resource server `memory-hub` declares the scopes `memory-hub/memory.read`, `memory.write` and
 *   `memory.admin`, and every route requires one. Three app clients sign users in with SRP and refresh
 *   tokens: `agent-app` (read, write; also the admin password flow, for operators with IAM credentials),
 *   `reader-app` (read only: an agent that consults memory and cannot change it) and `operator-app` (read,
 *   write, admin, for the humans and tools that manage guardrails and run workflows).
 * - Cognito puts custom attributes in ID tokens only, and custom scopes only in tokens from its OAuth
 *   endpoints. The pre-token-generation trigger (event V2_0) copies `custom:tenant` into the access token,
 *   adds to a token from an SRP, password or refresh sign-in the scopes its client is allowed (read from
 *   the SSM parameter `/memory-hub/{stage}/api-client-scopes`, which this construct writes), and refuses a
 *   token to a user without a tenant or in a badly named group.
 */
export class Identity extends Construct {
  public readonly userPool: UserPool;
  public readonly resourceServer: UserPoolResourceServer;
  public readonly agentAppClient: UserPoolClient;
  public readonly readerAppClient: UserPoolClient;
  public readonly operatorAppClient: UserPoolClient;
  /** Every client whose tokens the API accepts (its authorizer's audience), with the scopes it may hold. */
  public readonly apiClients: readonly ApiClient[];
  public readonly readScope: OAuthScope;
  public readonly writeScope: OAuthScope;
  public readonly adminScope: OAuthScope;
  /** The API clients' scopes as the trigger reads them: `[{ client, scopes }]`. */
  public readonly clientScopesParameter: StringParameter;
  public readonly preTokenGeneration: ServiceFunction;

  constructor(scope: Construct, id: string, props: IdentityProps) {
    super(scope, id);
    const featurePlan = props.featurePlan ?? FeaturePlan.ESSENTIALS;

    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `memory-hub-${props.stage}`,
      signInAliases: { username: true, email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      passwordPolicy: {
        minLength: 14,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      ...props.userPoolProps,
      selfSignUpEnabled: false,
      customAttributes: {
        [TENANT_ATTRIBUTE]: new StringAttribute({ minLen: 1, maxLen: 64, mutable: false }),
      },
      featurePlan,
      ...(featurePlan === FeaturePlan.PLUS
        ? { standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION }
        : {}),
    });

    // Named, not referenced, in the trigger's environment and policy: the pool depends on the trigger, and
    // the parameter on the pool's clients, so a reference would be a cycle.
    const clientScopesParameterName = `/memory-hub/${props.stage}/api-client-scopes`;
    this.preTokenGeneration = new ServiceFunction(this, 'PreTokenGeneration', {
      entry: PRE_TOKEN_GENERATION_ENTRY,
      handler: 'handler',
      description: 'Copies custom:tenant into Cognito access tokens and adds the app client scopes',
      memorySize: 256,
      // Cognito waits at most 5 s for a trigger.
      timeout: Duration.seconds(5),
      environment: { [API_CLIENT_SCOPES_ENV]: clientScopesParameterName },
      readsParameters: true,
    });
    StringParameter.fromStringParameterName(this, 'ClientScopesByName', clientScopesParameterName).grantRead(
      this.preTokenGeneration.role,
    );
    this.userPool.addTrigger(
      UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG,
      this.preTokenGeneration.function,
      LambdaVersion.V2_0,
    );

    const readScope = new ResourceServerScope({
      scopeName: MEMORY_SCOPES.read.name,
      scopeDescription: MEMORY_SCOPES.read.description,
    });
    const writeScope = new ResourceServerScope({
      scopeName: MEMORY_SCOPES.write.name,
      scopeDescription: MEMORY_SCOPES.write.description,
    });
    const adminScope = new ResourceServerScope({
      scopeName: MEMORY_SCOPES.admin.name,
      scopeDescription: MEMORY_SCOPES.admin.description,
    });
    this.resourceServer = this.userPool.addResourceServer('ResourceServer', {
      identifier: RESOURCE_SERVER_IDENTIFIER,
      userPoolResourceServerName: `memory-hub-${props.stage}`,
      scopes: [readScope, writeScope, adminScope],
    });
    this.readScope = OAuthScope.resourceServer(this.resourceServer, readScope);
    this.writeScope = OAuthScope.resourceServer(this.resourceServer, writeScope);
    this.adminScope = OAuthScope.resourceServer(this.resourceServer, adminScope);

    const callbackUrls = props.agentAppCallbackUrls ?? ['http://localhost:8976/callback'];
    // ADMIN_USER_PASSWORD_AUTH lets an operator holding IAM credentials (cognito-idp:AdminInitiateAuth) get a
    // token with the AWS CLI; USER_PASSWORD_AUTH, which would send passwords to a public endpoint, stays off.
    const agent = this.addApiClient('AgentAppClient', {
      name: 'agent-app',
      scopes: ['read', 'write'],
      adminUserPassword: true,
      callbackUrls,
    });
    const reader = this.addApiClient('ReaderAppClient', {
      name: 'reader-app',
      scopes: ['read'],
      adminUserPassword: false,
      callbackUrls,
    });
    const operator = this.addApiClient('OperatorAppClient', {
      name: 'operator-app',
      scopes: ['read', 'write', 'admin'],
      adminUserPassword: true,
      callbackUrls,
    });
    this.agentAppClient = agent.client;
    this.readerAppClient = reader.client;
    this.operatorAppClient = operator.client;
    this.apiClients = [agent, reader, operator];
    this.clientScopesParameter = new StringParameter(this, 'ClientScopes', {
      parameterName: clientScopesParameterName,
      description: `Memory Hub ${props.stage}: the scopes each API app client holds, added to its tokens by the trigger`,
      dataType: ParameterDataType.TEXT,
      stringValue: Stack.of(this).toJsonString(
        this.apiClients.map(({ client, scopes }) => ({
          client: client.userPoolClientId,
          scopes: scopes.map((scope) => `${RESOURCE_SERVER_IDENTIFIER}/${MEMORY_SCOPES[scope].name}`),
        })),
      ),
    });

    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions::AwsSolutions-COG2',
      reason:
        'Users are mostly agents signing in unattended with SRP, where a second factor has no one to answer it. ' +
        'MFA (TOTP) is optional so human administrators can enrol; credentials are admin-issued, 14+ characters.',
    });
    if (featurePlan !== FeaturePlan.PLUS) {
      Validations.of(this.userPool).acknowledge({
        id: 'AwsSolutions::AwsSolutions-COG8',
        reason:
          'The ESSENTIALS plan is chosen for cost: there is no self sign-up and users are admin-created agents, ' +
          'so threat protection (PLUS only) adds little; pass featurePlan PLUS to enforce it.',
      });
    }
  }

  /** An app client for agents or operators: SRP and refresh tokens, one-hour tokens, the given scopes. */
  private addApiClient(
    id: string,
    {
      name,
      scopes,
      adminUserPassword,
      callbackUrls,
    }: { name: string; scopes: readonly MemoryScopeName[]; adminUserPassword: boolean; callbackUrls: string[] },
  ): ApiClient {
    const oAuthScopes = { read: this.readScope, write: this.writeScope, admin: this.adminScope };
    const client = this.userPool.addClient(id, {
      userPoolClientName: name,
      generateSecret: false,
      authFlows: { userSrp: true, adminUserPassword },
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, ...scopes.map((scope) => oAuthScopes[scope])],
        callbackUrls,
      },
    });
    return { client, scopes };
  }
}
