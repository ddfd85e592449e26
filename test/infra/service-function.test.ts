import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { bareStack } from './support/fixture-app.ts';

describe('Construct: ServiceFunction', () => {
  const entry = 'test/infra/fixtures/handlers/system.lambda.ts';

  it('refuses a timeout longer than API Gateway waits', () => {
    // Prepare
    const stack = bareStack();

    // Act & Assess
    expect(
      () => new ServiceFunction(stack, 'Function', { entry, handler: 'getHealth', timeout: Duration.seconds(30) }),
    ).toThrow(/timeout must not exceed 29 seconds/);
  });

  it('lets an asynchronous function run up to Lambda’s 15 minutes, and no longer', () => {
    // Prepare
    const stack = bareStack();

    // Act
    const workflowStep = new ServiceFunction(stack, 'Step', {
      entry,
      handler: 'getHealth',
      synchronous: false,
      timeout: Duration.minutes(15),
    });

    // Assess
    expect(workflowStep.function.timeout?.toSeconds()).toBe(900);
    expect(
      () =>
        new ServiceFunction(stack, 'TooLong', {
          entry,
          handler: 'getHealth',
          synchronous: false,
          timeout: Duration.minutes(16),
        }),
    ).toThrow(/timeout must not exceed 900 seconds/);
  });

  it('refuses a memory size Lambda does not offer', () => {
    // Prepare
    const stack = bareStack();

    // Act & Assess
    expect(() => new ServiceFunction(stack, 'Function', { entry, handler: 'getHealth', memorySize: 64 })).toThrow(
      /memorySize 64 MB is out of range/,
    );
  });

  it('traces every invocation actively by default: Lambda records the segment, no X-Ray SDK runs in the function', () => {
    // Prepare
    const stack = bareStack();

    // Act
    new ServiceFunction(stack, 'Function', { entry, handler: 'getHealth' });

    // Assess
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', { TracingConfig: { Mode: 'Active' } });
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' }),
        ]),
      },
    });
  });

  it('traces only what the caller sampled when asked for pass-through, still allowed to send the segment', () => {
    // Prepare
    const stack = bareStack();

    // Act
    new ServiceFunction(stack, 'Function', { entry, handler: 'getHealth', tracing: Tracing.PASS_THROUGH });

    // Assess
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      TracingConfig: { Mode: 'PassThrough' },
    });
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' }),
        ]),
      },
    });
  });

  it('runs the Parameters and Secrets extension, its cache off, only in a function that reads parameters', () => {
    // Prepare
    const stack = bareStack();

    // Act
    new ServiceFunction(stack, 'Reader', { entry, handler: 'getHealth', readsParameters: true });
    new ServiceFunction(stack, 'Other', { entry, handler: 'getHealth' });

    // Assess
    const functions = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
    const reader = functions.find((fn) => fn.Properties.Layers !== undefined);
    expect(functions.filter((fn) => fn.Properties.Layers === undefined)).toHaveLength(1);
    expect(reader?.Properties.Environment.Variables).toMatchObject({
      PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'false',
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
      PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL: 'warn',
    });
  });

  describe('Method: reserveConcurrency', () => {
    it('reserves the executions asked for, which bound the function', () => {
      // Prepare
      const stack = bareStack();
      const serviceFunction = new ServiceFunction(stack, 'Function', { entry, handler: 'getHealth' });

      // Act
      serviceFunction.reserveConcurrency(3);

      // Assess
      Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 3 });
    });

    it('refuses zero, which would switch the function off', () => {
      // Prepare
      const serviceFunction = new ServiceFunction(bareStack(), 'Function', { entry, handler: 'getHealth' });

      // Act & Assess
      expect(() => serviceFunction.reserveConcurrency(0)).toThrow(/at least 1/);
    });
  });
});
