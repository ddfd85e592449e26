import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { lambdaBundlingOptions } from '../lambda-bundling.ts';

/**
 * Props for a Memory Hub function: `NodejsFunction` props, with `entry` and `handler` required. Runtime,
 * architecture, bundling, role and log group are fixed here; memory, timeout and log retention may be
 * tuned but always have explicit values.
 */
export interface ServiceFunctionProps
  extends Omit<NodejsFunctionProps, 'runtime' | 'architecture' | 'bundling' | 'role' | 'logGroup' | 'logRetention'> {
  readonly entry: string;
  readonly handler: string;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/** Secure, explicit defaults shared by every Memory Hub Lambda function. */
export const SERVICE_FUNCTION_DEFAULTS = {
  runtime: Runtime.NODEJS_24_X,
  architecture: Architecture.ARM_64,
  memorySize: 512,
  timeout: Duration.seconds(10),
  logRetention: RetentionDays.ONE_MONTH,
} as const;

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
    const { logRetention, ...functionProps } = props;
    const memorySize = props.memorySize ?? SERVICE_FUNCTION_DEFAULTS.memorySize;
    const timeout = props.timeout ?? SERVICE_FUNCTION_DEFAULTS.timeout;
    if (memorySize < 128 || memorySize > 10_240) {
      throw new Error(`${this.node.path}: memorySize ${memorySize} MB is out of range`);
    }
    if (timeout.toSeconds() > 29) {
      // Every caller is synchronous (API Gateway waits 29 s, Cognito 5 s): a longer timeout only hides
      // work nobody waits for.
      throw new Error(`${this.node.path}: timeout must not exceed 29 seconds`);
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
      // The text log format (Lambda's default) on purpose: under the JSON format Lambda wraps each
      // console.log line in its own JSON envelope, and embedded-metric-format lines stop being metrics.
      bundling: lambdaBundlingOptions,
    });
  }
}
