import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  type HttpApiProps,
  HttpStage,
  LogGroupLogDestination,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/*
 * Why an HTTP API (API Gateway v2) and not a REST API (v1):
 * - cost: $1.00 vs $3.50 per million requests (first 300 M/month), at 120 operations/s that is the larger
 *   share of the bill;
 * - latency: a lighter proxy, lower added p95, and JWT validation (issuer, audience, expiry, signature)
 *   is built in: no Lambda authorizer, no extra cold start;
 * - access logs need no account-wide CloudWatch role.
 * What a REST API would add and why we do without it: request validation (done in the handlers with the
 * same zod schemas the local server uses, so both modes answer identically), AWS WAF on the stage (can be
 * put in front later with CloudFront if a tenant needs it), usage plans/API keys (the callers are
 * authenticated agents, throttled per stage), and request/response mapping (not needed with Lambda proxy).
 */

/**
 * One access-log line per request, JSON. Identifies nothing but the request: the route template (not the
 * path, which holds ids), status, latencies and error codes; no source IP, user agent, principal or
 * request body.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  error: '$context.error.message',
} as const;

/** Stage-wide throttling: headroom above the 120 operations/s workload, a cap on runaway agents. */
export const DEFAULT_THROTTLE: Required<ThrottleSettings> = { rateLimit: 200, burstLimit: 400 };

export interface MemoryHubHttpApiProps {
  /** The pool whose tokens are accepted (issuer). */
  readonly userPool: IUserPool;
  /** The app clients whose tokens are accepted (audience, matched against `client_id` of access tokens). */
  readonly userPoolClients: IUserPoolClient[];
  /** @default DEFAULT_THROTTLE */
  readonly throttle?: ThrottleSettings;
  /** @default RetentionDays.ONE_MONTH */
  readonly accessLogRetention?: RetentionDays;
  /** Overrides for the API (e.g. `corsPreflight`); the stage and the default authorizer are fixed here. */
  readonly httpApiProps?: Omit<HttpApiProps, 'createDefaultStage' | 'defaultAuthorizer' | 'defaultAuthorizationScopes'>;
}

/**
 * The HTTP API: a `$default` stage with JSON access logs and throttling, and a JWT authorizer on the
 * user pool that is the default for every route (a public route has to opt out explicitly).
 *
 * Where each token rule is enforced in AWS (README, "Tokens and scopes"; the local server checks all of
 * them too, in lambdas/local/local-issuer.ts and the middleware):
 * - this authorizer (401 `{"message":"Unauthorized"}`): RS256 signature against the pool's JWKS and the
 *   `kid`, `iss` = the pool, `client_id`/`aud` one of `userPoolClients`, `exp` after now, `nbf` and `iat`
 *   before now;
 * - each route's `authorizationScopes` (ApiFunctions, from the document's `requiredScope`; 403
 *   `{"message":"Forbidden"}`): the token's `scope` holds the operation's one scope — which also keeps ID
 *   tokens out, as they carry no scope;
 * - the Lambda middleware (authenticated-scope.ts, error shape): `exp` and `iat` required, `iat` at most 5 s
 *   ahead, lifetime at most 24 h (the authorizer neither requires `exp` nor bounds the lifetime), the scope
 *   again, and `sub`, `custom:tenant`, `client_id` and every `cognito:groups` name well-formed;
 * - the pre-token-generation trigger (Identity): no token at all for a user without a tenant or in a
 *   group named outside `project:{id}:{role}` / `org:admin`.
 */
export class MemoryHubHttpApi extends Construct {
  public readonly httpApi: HttpApi;
  public readonly stage: HttpStage;
  public readonly authorizer: HttpUserPoolAuthorizer;
  public readonly accessLogGroup: LogGroup;

  constructor(scope: Construct, id: string, props: MemoryHubHttpApiProps) {
    super(scope, id);
    if (props.userPoolClients.length === 0) {
      throw new Error(`${this.node.path}: at least one user pool client is needed`);
    }
    const throttle = { ...DEFAULT_THROTTLE, ...props.throttle };
    if (throttle.rateLimit <= 0 || throttle.burstLimit < 1) {
      throw new Error(`${this.node.path}: throttle rate and burst must be positive`);
    }

    this.authorizer = new HttpUserPoolAuthorizer('JwtAuthorizer', props.userPool, {
      userPoolClients: props.userPoolClients,
      identitySource: ['$request.header.Authorization'],
    });
    this.httpApi = new HttpApi(this, 'Api', {
      description: 'Memory Hub API',
      ...props.httpApiProps,
      createDefaultStage: false,
      defaultAuthorizer: this.authorizer,
    });

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  /** The invoke URL of the `$default` stage (ends with `/`). */
  public get url(): string {
    return this.stage.url;
  }
}
