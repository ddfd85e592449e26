import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterQueue } from '../../lib/constructs/dead-letter-queue.ts';
import { MemoryHubEventBus, RECORD_EVENTS_PATTERN } from '../../lib/constructs/event-bus.ts';
import { type EventConsumer, recordEventsPattern } from '../../lib/constructs/event-consumers.ts';
import { bareStack, type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';
import { actionsOf, logicalIdOf, statementsAllowing } from './support/template-queries.ts';

const arnOf = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

describe('Event backbone', () => {
  let synthesized: SynthesizedApp;

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp();
  });
  afterAll(() => synthesized.dispose());

  describe('Construct: MemoryHubEventBus', () => {
    it('creates the custom bus memory-hub-{stage}', () => {
      // Assess
      synthesized.template.resourceCountIs('AWS::Events::EventBus', 1);
      synthesized.template.hasResourceProperties('AWS::Events::EventBus', { Name: 'memory-hub-test' });
    });

    it('archives every memory-hub event for 30 days', () => {
      // Assess
      synthesized.template.resourceCountIs('AWS::Events::Archive', 1);
      synthesized.template.hasResourceProperties('AWS::Events::Archive', {
        SourceArn: arnOf(logicalIdOf(synthesized.stack.eventBus.bus)),
        EventPattern: { source: ['memory-hub'] },
        RetentionDays: 30,
      });
    });

    it('refuses an archive kept less than a day', () => {
      // Act & Assess
      expect(
        () => new MemoryHubEventBus(bareStack(), 'Bus', { stage: 'qa', archiveRetention: Duration.hours(1) }),
      ).toThrow(/at least one day/);
    });
  });

  describe('Construct: OutboxRelay', () => {
    it('reads the table stream, filtered to revisions inserted naming their marker', () => {
      // Prepare
      const relay = synthesized.stack.outboxRelay;

      // Assess
      synthesized.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [logicalIdOf(synthesized.stack.memoryTable.table), 'StreamArn'] },
        FunctionName: { Ref: logicalIdOf(relay.relay.function) },
        FilterCriteria: {
          Filters: [
            {
              Pattern: JSON.stringify({
                eventName: ['INSERT'],
                dynamodb: { NewImage: { outboxMarker: { S: [{ exists: true }] } } },
              }),
            },
          ],
        },
      });
    });

    it('bisects failing batches, retries a bounded number of times, reports partial failures and records what it gives up on', () => {
      // Prepare
      const failureQueueLogicalId = logicalIdOf(synthesized.stack.outboxRelay.failureQueue.queue);

      // Assess
      synthesized.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 5,
        MaximumRecordAgeInSeconds: 3600,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: arnOf(failureQueueLogicalId) } },
      });
      expect(synthesized.template.toJSON().Resources[failureQueueLogicalId].Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 1_209_600,
      });
    });

    it('runs the sweep every minute with EventBridge Scheduler, through a role that may invoke only the sweep', () => {
      // Prepare
      const relay = synthesized.stack.outboxRelay;
      const sweepArn = arnOf(logicalIdOf(relay.sweep.function));

      // Assess
      synthesized.template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        Target: { Arn: sweepArn, RoleArn: arnOf(logicalIdOf(relay.sweepScheduleRole)) },
      });
      expect(actionsOf(synthesized.template, relay.sweepScheduleRole)).toEqual(['lambda:InvokeFunction']);
    });

    it('runs relayOutboxStream and sweepOutbox with the backend environment and the bus name', () => {
      // Assess
      for (const handler of ['relayOutboxStream', 'sweepOutbox']) {
        synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
          Handler: `index.${handler}`,
          Environment: {
            Variables: {
              MEMORY_HUB_STAGE: 'test',
              MEMORY_HUB_TABLE_NAME: { Ref: logicalIdOf(synthesized.stack.memoryTable.table) },
              MEMORY_HUB_KEY_ARN: arnOf(logicalIdOf(synthesized.stack.encryptionKey.key)),
              MEMORY_HUB_CONFIG_PARAMETER: { Ref: logicalIdOf(synthesized.stack.parameters.config) },
              MEMORY_HUB_EVENT_BUS_NAME: { Ref: logicalIdOf(synthesized.stack.eventBus.bus) },
            },
          },
        });
      }
    });

    it('lets relay and sweep write the table, use the key, read the configuration and put events on the bus only', () => {
      // Prepare
      const busArn = arnOf(logicalIdOf(synthesized.stack.eventBus.bus));

      // Assess
      for (const serviceFunction of [synthesized.stack.outboxRelay.relay, synthesized.stack.outboxRelay.sweep]) {
        const actions = actionsOf(synthesized.template, serviceFunction.role);
        expect(actions).toEqual(
          expect.arrayContaining([
            'dynamodb:UpdateItem',
            'dynamodb:Query',
            'kms:Decrypt',
            'ssm:GetParameter',
            'events:PutEvents',
          ]),
        );
        expect(
          statementsAllowing(synthesized.template, serviceFunction.role, 'events:PutEvents').map(
            (statement) => statement.Resource,
          ),
        ).toEqual([busArn]);
      }
      expect(actionsOf(synthesized.template, synthesized.stack.outboxRelay.relay.role)).toEqual(
        expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:DescribeStream', 'sqs:SendMessage']),
      );
    });
  });

  describe('Construct: EventConsumers', () => {
    const consumers = () =>
      [
        [synthesized.stack.eventConsumers.consumer('projectHead'), 'projectHead'],
        [synthesized.stack.eventConsumers.consumer('recordAudit'), 'recordAudit'],
      ] as const;

    it('routes record events to projectHead and to recordAudit, each through its own rule', () => {
      // Assess
      synthesized.template.resourceCountIs('AWS::Events::Rule', 2);
      for (const [consumer, handler] of consumers()) {
        synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
          Handler: `index.${handler}`,
          Environment: {
            Variables: Match.objectLike({
              MEMORY_HUB_CONFIG_PARAMETER: { Ref: logicalIdOf(synthesized.stack.parameters.config) },
            }),
          },
        });
        synthesized.template.hasResourceProperties('AWS::Events::Rule', {
          EventBusName: { Ref: logicalIdOf(synthesized.stack.eventBus.bus) },
          EventPattern: Match.objectLike({ source: ['memory-hub'], 'detail-type': [{ prefix: 'record.' }] }),
          Targets: [Match.objectLike({ Arn: arnOf(logicalIdOf(consumer.consumer.function)) })],
        });
      }
    });

    it('leaves out of each rule the record kinds its consumer does not handle, as the deployment document says', () => {
      // Prepare: the fixture's kinds are thing, thing-events and thing-receipt
      const patternOf = (consumer: EventConsumer) =>
        synthesized.template.toJSON().Resources[logicalIdOf(consumer.rule)].Properties.EventPattern;

      // Assess: an event of a kind not named (a kind newer than the rule) still reaches both
      expect(patternOf(synthesized.stack.eventConsumers.consumer('projectHead'))).toEqual({
        source: ['memory-hub'],
        'detail-type': [{ prefix: 'record.' }],
        detail: { record_kind: [{ 'anything-but': ['thing-events'] }] },
      });
      expect(patternOf(synthesized.stack.eventConsumers.consumer('recordAudit'))).toEqual({
        source: ['memory-hub'],
        'detail-type': [{ prefix: 'record.' }],
        detail: { record_kind: [{ 'anything-but': ['thing-events', 'thing-receipt'] }] },
      });
    });

    it('filters nothing for a consumer that handles every kind', () => {
      // Act
      const pattern = recordEventsPattern([]);

      // Assess
      expect(pattern).toEqual(RECORD_EVENTS_PATTERN);
    });

    it('retries delivery for 24 hours, then sends the event to the consumer’s own dead-letter queue', () => {
      // Assess
      const queueIds = new Set<string>();
      for (const [consumer, handler] of consumers()) {
        const queueLogicalId = logicalIdOf(consumer.deadLetterQueue.queue);
        queueIds.add(queueLogicalId);
        synthesized.template.hasResourceProperties('AWS::Events::Rule', {
          Targets: [
            Match.objectLike({
              Arn: arnOf(logicalIdOf(consumer.consumer.function)),
              RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
              DeadLetterConfig: { Arn: arnOf(queueLogicalId) },
            }),
          ],
        });
        // A failure inside the function lands in the same queue, the event as the message body.
        synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
          Handler: `index.${handler}`,
          DeadLetterConfig: { TargetArn: arnOf(queueLogicalId) },
        });
        synthesized.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: queueLogicalId }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' } }),
            ]),
          },
        });
      }
      expect(queueIds.size).toBe(2);
    });

    it('lets consumers write the table and use the key, but not publish', () => {
      // Assess
      for (const [consumer] of consumers()) {
        const actions = actionsOf(synthesized.template, consumer.consumer.role);
        expect(actions).toEqual(
          expect.arrayContaining(['dynamodb:PutItem', 'kms:Decrypt', 'ssm:GetParameter', 'sqs:SendMessage']),
        );
        expect(actions).not.toContain('events:PutEvents');
        expect(actions).not.toContain('kms:GenerateDataKey');
      }
    });
  });

  describe('Construct: DeadLetterQueue', () => {
    it('encrypts every queue, requires TLS and keeps messages 14 days', () => {
      // Prepare
      const queues = synthesized.template.findResources('AWS::SQS::Queue');

      // Assess
      expect(Object.keys(queues).length).toBeGreaterThanOrEqual(3);
      for (const [logicalId, queue] of Object.entries(queues)) {
        expect(queue.Properties.SqsManagedSseEnabled ?? queue.Properties.KmsMasterKeyId, logicalId).toBeTruthy();
        expect(queue.Properties.MessageRetentionPeriod, logicalId).toBe(1_209_600);
        synthesized.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: logicalId }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Effect: 'Deny',
                Action: 'sqs:*',
                Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              }),
            ]),
          },
        });
      }
    });

    it('refuses a retention SQS cannot keep', () => {
      // Act & Assess
      expect(
        () => new DeadLetterQueue(bareStack(), 'Queue', { holds: 'test messages', retentionPeriod: Duration.days(15) }),
      ).toThrow(/between 1 minute and 14 days/);
    });

    it('keeps encryption and TLS whatever queue props it is given', () => {
      // Prepare
      const stack = bareStack();

      // Act
      new DeadLetterQueue(stack, 'Queue', {
        holds: 'test messages',
        queueProps: { enforceSSL: false, encryption: undefined } as never,
      });

      // Assess
      Template.fromStack(stack).hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
      Template.fromStack(stack).resourceCountIs('AWS::SQS::QueuePolicy', 1);
    });
  });
});
