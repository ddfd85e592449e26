import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
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
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function.ts';

/** The tenant attribute: set by an administrator when the user is created, immutable afterwards. */
export const TENANT_ATTRIBUTE = 'tenant';
/** The claim the tenant appears as, in ID tokens natively and in access tokens through the trigger. */
export const TENANT_CLAIM = `custom:${TENANT_ATTRIBUTE}`;
export const RESOURCE_SERVER_IDENTIFIER = 'memory-hub';
export const MEMORY_SCOPES = {
  read: { name: 'memory.read', description: 'Read memory the caller is entitled to' },
  write: { name: 'memory.write', description: 'Record and change memory the caller is entitled to' },
} as const;

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
 *   `project:{projectId}:{role}` (e.g. `project:apollo:maintainer`) or `org:admin`. None are fixed here.
 * - A resource server `memory-hub` declares the scopes `memory-hub/memory.read` and
 *   `memory-hub/memory.write`; the example `agent-app` client may request them and signs users in with
 *   SRP and refresh tokens (and, for operators with IAM credentials, the admin password flow).
 * - Cognito puts custom attributes in ID tokens only; the pre-token-generation trigger (event V2_0)
 *   copies `custom:tenant` into the access token the API authorises, and refuses a token to a user
 *   without a tenant.
 */
export class Identity extends Construct {
  public readonly userPool: UserPool;
  public readonly resourceServer: UserPoolResourceServer;
  public readonly agentAppClient: UserPoolClient;
  public readonly readScope: OAuthScope;
  public readonly writeScope: OAuthScope;
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

    this.preTokenGeneration = new ServiceFunction(this, 'PreTokenGeneration', {
      entry: PRE_TOKEN_GENERATION_ENTRY,
      handler: 'handler',
      description: 'Copies custom:tenant into Cognito access tokens',
      memorySize: 256,
      // Cognito waits at most 5 s for a trigger.
      timeout: Duration.seconds(5),
    });
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
    this.resourceServer = this.userPool.addResourceServer('ResourceServer', {
      identifier: RESOURCE_SERVER_IDENTIFIER,
      userPoolResourceServerName: `memory-hub-${props.stage}`,
      scopes: [readScope, writeScope],
    });
    this.readScope = OAuthScope.resourceServer(this.resourceServer, readScope);
    this.writeScope = OAuthScope.resourceServer(this.resourceServer, writeScope);

    this.agentAppClient = this.userPool.addClient('AgentAppClient', {
      userPoolClientName: 'agent-app',
      generateSecret: false,
      // SRP for agents. ADMIN_USER_PASSWORD_AUTH lets an operator holding IAM credentials
      // (cognito-idp:AdminInitiateAuth) get a token with the AWS CLI; USER_PASSWORD_AUTH, which would send
      // passwords to a public endpoint, stays off.
      authFlows: { userSrp: true, adminUserPassword: true },
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, this.readScope, this.writeScope],
        callbackUrls: props.agentAppCallbackUrls ?? ['http://localhost:8976/callback'],
      },
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
}
