import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  type CfnFunction,
  LoggingFormat,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { BUNDLED_BACKENDS_CONTEXT, type BundledBackends, lambdaBundlingOptionsFor } from '../lambda-bundling.ts';

/**
 * Props for a Memory Hub function: `NodejsFunction` props, with `entry` and `handler` required. Runtime,
 * architecture, bundling, role and log group are fixed here; memory, timeout and log retention may be
 * tuned but always have explicit values.
 */
export interface ServiceFunctionProps
  extends Omit<
    NodejsFunctionProps,
    'runtime' | 'architecture' | 'bundling' | 'role' | 'logGroup' | 'logRetention' | 'paramsAndSecrets'
  > {
  readonly entry: string;
  readonly handler: string;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * Whether a caller waits for the answer (API Gateway, Cognito): the timeout is then capped at
   * `MAX_SYNCHRONOUS_TIMEOUT`. Stream, event, schedule and workflow functions run unattended and may take
   * up to Lambda's 15 minutes.
   * @default true
   */
  readonly synchronous?: boolean;
  /**
   * Whether the function reads SSM parameters: it then runs the Parameters and Secrets extension
   * (`PARAMETERS_EXTENSION`), which it reads them through. The caller still grants the read on each parameter.
   * @default false
   */
  readonly readsParameters?: boolean;
  /**
   * `Tracing.ACTIVE`: Lambda samples invocations itself (the first each second and 5% of the rest, not
   * configurable). `Tracing.PASS_THROUGH`: only an invocation whose incoming trace header is sampled is traced.
   * @default SERVICE_FUNCTION_DEFAULTS.tracing
   */
  readonly tracing?: Tracing.ACTIVE | Tracing.PASS_THROUGH;
}

/** Secure, explicit defaults shared by every Memory Hub Lambda function. */
export const SERVICE_FUNCTION_DEFAULTS = {
  runtime: Runtime.NODEJS_24_X,
  architecture: Architecture.ARM_64,
  memorySize: 512,
  timeout: Duration.seconds(10),
  logRetention: RetentionDays.ONE_MONTH,
  /** The background functions (relay, consumers, workflow steps, Cognito's trigger); see `REQUEST_TRACING_DEFAULT`. */
  tracing: Tracing.ACTIVE,
  /*
   * JSON logs, and of Lambda's own lines only warnings and errors: START, END and REPORT (a third of the log bytes
   * of a request, see BENCHMARKS.md) are not written; Lambda's Duration, Errors and Throttles metrics still are.
   * Powertools writes its JSON lines (logs and embedded-metric-format metrics) to stdout through a console of its
   * own, which Lambda passes on as they are; a metric line has no `level`, so Lambda takes it for INFO and
   * keeps it at the application log level INFO.
   */
  loggingFormat: LoggingFormat.JSON,
  systemLogLevel: SystemLogLevel.WARN,
  applicationLogLevel: ApplicationLogLevel.INFO,
} as const;

/**
 * The AWS Parameters and Secrets Lambda Extension, a layer AWS publishes per region and architecture (CDK picks the
 * arm64 one, by the stack's region or, in a region-agnostic template, from a mapping of the regions that have it:
 * a region without it refuses to synthesize, or fails the deployment), which functions read SSM parameters
 * through over localhost (`lambdas/adapters/config/parameters-extension-client.ts`) instead of bundling an SSM
 * client. Its cache is off: each reader keeps the value it read for a TTL of its own
 * (the configuration's 30 s, the client scopes' 5 min), so a second cache in front of SSM would only add its
 * TTL (5 min by default) to how long a change takes to be seen; each read is one GetParameter, as before. It logs
 * warnings and errors only, as Lambda's own lines. Port 2773 and the other settings are the extension's defaults.
 * https://docs.aws.amazon.com/systems-manager/latest/userguide/ps-integration-lambda-extensions.html
 */
const PARAMETERS_EXTENSION_OPTIONS = { cacheEnabled: false, logLevel: ParamsAndSecretsLogLevel.WARN } as const;
export const PARAMETERS_EXTENSION = ParamsAndSecretsLayerVersion.fromVersion(
  ParamsAndSecretsVersions.V1_0_103,
  PARAMETERS_EXTENSION_OPTIONS,
);

/**
 * CDK context naming the extension's arm64 layer for a region CDK's table lacks (newer regions: AWS lists the layer
 * ARNs per region on the page above), e.g. `-c parametersExtensionLayerArn=arn:aws:lambda:eu-central-2:…:4`.
 */
export const PARAMETERS_EXTENSION_LAYER_CONTEXT = 'parametersExtensionLayerArn';
const LAYER_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/;

/** The extension from the context's layer ARN when one is given, else CDK's own (by region). */
export const parametersExtension = (layerArn: unknown): ParamsAndSecretsLayerVersion => {
  if (layerArn === undefined) return PARAMETERS_EXTENSION;
  if (typeof layerArn !== 'string' || !LAYER_ARN.test(layerArn))
    throw new Error(
      `${PARAMETERS_EXTENSION_LAYER_CONTEXT} must be a Lambda layer version ARN ` +
        '(arn:aws:lambda:{region}:{account}:layer:{name}:{version})',
    );
  return ParamsAndSecretsLayerVersion.fromVersionArn(layerArn, PARAMETERS_EXTENSION_OPTIONS);
};

/** API Gateway waits 29 s, Cognito 5 s: a longer timeout on a synchronous function only hides work nobody waits for. */
export const MAX_SYNCHRONOUS_TIMEOUT = Duration.seconds(29);
/** Lambda's own limit. */
export const MAX_ASYNCHRONOUS_TIMEOUT = Duration.minutes(15);

/**
 * A Node.js 24 arm64 function bundled locally by esbuild, with its own log group (finite retention) and
 * its own role. The role starts empty apart from writing to that one log group — no
 * `AWSLambdaBasicExecutionRole`, whose `logs:*` on `*` would let a function write into any log group —
 * and callers add what the function needs through `grant*` methods.
 */
export class ServiceFunction extends Construct {
  public readonly function: NodejsFunction;
  public readonly role: Role;
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const {
      logRetention,
      synchronous = true,
      readsParameters = false,
      tracing = SERVICE_FUNCTION_DEFAULTS.tracing,
      ...functionProps
    } = props;
    const memorySize = props.memorySize ?? SERVICE_FUNCTION_DEFAULTS.memorySize;
    const timeout = props.timeout ?? SERVICE_FUNCTION_DEFAULTS.timeout;
    if (memorySize < 128 || memorySize > 10_240) {
      throw new Error(`${this.node.path}: memorySize ${memorySize} MB is out of range`);
    }
    const maxTimeout = synchronous ? MAX_SYNCHRONOUS_TIMEOUT : MAX_ASYNCHRONOUS_TIMEOUT;
    if (timeout.toSeconds() > maxTimeout.toSeconds()) {
      throw new Error(
        `${this.node.path}: timeout must not exceed ${maxTimeout.toSeconds()} seconds for a ${synchronous ? 'synchronous' : 'asynchronous'} function`,
      );
    }

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: logRetention ?? SERVICE_FUNCTION_DEFAULTS.logRetention,
      // Kept when the stack is deleted: logs are evidence, and they expire on their own.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      ...functionProps,
      runtime: SERVICE_FUNCTION_DEFAULTS.runtime,
      architecture: SERVICE_FUNCTION_DEFAULTS.architecture,
      memorySize,
      timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: SERVICE_FUNCTION_DEFAULTS.loggingFormat,
      systemLogLevelV2: SERVICE_FUNCTION_DEFAULTS.systemLogLevel,
      applicationLogLevelV2: SERVICE_FUNCTION_DEFAULTS.applicationLogLevel,
      // The opt-in clients the stack's deployment uses (`BUNDLED_BACKENDS_CONTEXT`), none by default.
      bundling: lambdaBundlingOptionsFor(
        this.node.tryGetContext(BUNDLED_BACKENDS_CONTEXT) as BundledBackends | undefined,
      ),
      ...(readsParameters && {
        paramsAndSecrets: parametersExtension(this.node.tryGetContext(PARAMETERS_EXTENSION_LAYER_CONTEXT)),
      }),
      // Lambda records each traced invocation's segment; the SDK's calls carry the trace header on to the bus and
      // the consumers. No X-Ray SDK runs in the function (adapters/observability/powertools.ts says why).
      tracing,
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Added by tracing (active or pass-through): X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions.',
    });
    if (tracing === Tracing.PASS_THROUGH) {
      Validations.of(this.function).acknowledge({
        id: 'Serverless::Serverless-LambdaTracing',
        reason:
          "Pass-through tracing, the stack's choice for request functions (README, Tracing): Lambda's own sampling of every function's requests cost a tenth of the 120/s mix; requestTracing=active turns it on.",
      });
    }
    if (synchronous) {
      Validations.of(this.function).acknowledge({
        id: 'Serverless::Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously (API Gateway, Cognito): the caller receives the error and may retry; a dead-letter queue only ever receives failed asynchronous invocations.',
      });
    }
  }

  /**
   * Reserves `executions` of the account's concurrency for this function, which is also the most it runs at
   * once. The stack decides (`lib/reserved-concurrency.ts`): a reservation is an account-wide trade-off.
   */
  reserveConcurrency(executions: number): void {
    if (!Number.isInteger(executions) || executions < 1) {
      throw new Error(`${this.node.path}: reserved concurrency must be a whole number of at least 1`);
    }
    (this.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions = executions;
  }
}
