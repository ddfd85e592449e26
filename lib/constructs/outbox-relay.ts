import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { type BackendResources, backendEnvironment, grantBackendAccess } from '../backend-access.ts';
import { DeadLetterQueue } from './dead-letter-queue.ts';
import { MEMORY_TABLE_SCHEMA } from './memory-table.ts';
import { ServiceFunction } from './service-function.ts';

/** The exports of the relay's entry module. */
export const OUTBOX_RELAY_HANDLERS = { stream: 'relayOutboxStream', sweep: 'sweepOutbox' } as const;

/**
 * Only stream records of revisions as they are committed: items inserted naming an outbox marker. Markers,
 * heads, and every later change to a revision (none but its deletion) do not invoke the relay.
 */
export const OUTBOX_STREAM_FILTER = FilterCriteria.filter({
  eventName: FilterRule.isEqual('INSERT'),
  dynamodb: { NewImage: { [MEMORY_TABLE_SCHEMA.outboxMarkerAttribute]: { S: FilterRule.exists() } } },
});

export interface OutboxRelayProps extends BackendResources {
  /** Absolute path of the entry module exporting `relayOutboxStream` and `sweepOutbox`. */
  readonly entry: string;
  /** The bus events are published to. */
  readonly eventBus: IEventBus;
  /** Stream retries of a failing batch (each failure bisected) before it goes to the failure queue. @default 5 */
  readonly retryAttempts?: number;
  /** Stream records older than this are given up on (the sweep still publishes them). @default Duration.hours(1) */
  readonly maxRecordAge?: Duration;
}

/**
 * Publishes the table's outbox to the bus, at least once.
 *
 * - `relayOutboxStream` reads the table's stream, filtered to revisions as they are committed, so deleting
 *   an outbox marker (and every other write) does not invoke it. A failing batch is bisected and
 *   retried a bounded number of times; the function reports the records it could not publish
 *   (`batchItemFailures`), and what is given up on is recorded in the failure queue (shard and sequence
 *   numbers, not the records).
 * - `sweepOutbox` runs every minute (EventBridge Scheduler) and republishes anything still marked after
 *   a minute, from the outbox's marker partitions: whatever the stream path missed or gave up on.
 */
export class OutboxRelay extends Construct {
  public readonly relay: ServiceFunction;
  public readonly sweep: ServiceFunction;
  public readonly streamSource: DynamoEventSource;
  /** On-failure destination of the stream's event source mapping. */
  public readonly failureQueue: DeadLetterQueue;
  public readonly sweepSchedule: Schedule;
  /** The role EventBridge Scheduler invokes the sweep with (that one function only). */
  public readonly sweepScheduleRole: Role;

  constructor(scope: Construct, id: string, props: OutboxRelayProps) {
    super(scope, id);
    const retryAttempts = props.retryAttempts ?? 5;
    if (!Number.isInteger(retryAttempts) || retryAttempts < 0 || retryAttempts > 10_000) {
      throw new Error(`${this.node.path}: retryAttempts must be an integer from 0 to 10000`);
    }
    const environment = {
      ...backendEnvironment(props, 'write'),
      MEMORY_HUB_EVENT_BUS_NAME: props.eventBus.eventBusName,
    };

    this.relay = new ServiceFunction(this, 'Relay', {
      entry: props.entry,
      handler: OUTBOX_RELAY_HANDLERS.stream,
      description: 'Publishes the events of committed revisions from the table stream to the event bus',
      synchronous: false,
      timeout: Duration.seconds(30),
      environment,
      readsParameters: true,
    });
    this.sweep = new ServiceFunction(this, 'Sweep', {
      entry: props.entry,
      handler: OUTBOX_RELAY_HANDLERS.sweep,
      description: 'Republishes revisions still marked in the outbox a minute after they were written',
      synchronous: false,
      // Done before the next run starts.
      timeout: Duration.seconds(50),
      // A failed sweep is not retried: the next one, a minute later, covers the same items.
      retryAttempts: 0,
      maxEventAge: Duration.minutes(1),
      environment,
      readsParameters: true,
    });
    Validations.of(this.relay.function).acknowledge({
      id: 'Serverless::Serverless-LambdaDLQ',
      reason:
        'Invoked by the stream event source mapping, never asynchronously: what it gives up on goes to the mapping’s on-failure destination (the StreamFailures queue), and the sweep republishes it.',
    });
    Validations.of(this.sweep.function).acknowledge(
      {
        id: 'Serverless::Serverless-LambdaDLQ',
        reason:
          'A failed sweep is dropped on purpose (no retry, one minute maximum age): the next run, a minute later, covers the same outbox items, and the failure is in the logs and metrics.',
      },
      {
        id: 'Serverless::Serverless-LambdaAsyncFailureDestination',
        reason:
          'A failed sweep is dropped on purpose: there is nothing to keep from it, since the next run a minute later republishes whatever the failed one did not.',
      },
    );
    for (const serviceFunction of [this.relay, this.sweep]) {
      grantBackendAccess(serviceFunction, props, 'write', { handlesContent: false });
      props.eventBus.grantPutEventsTo(serviceFunction.role);
    }

    this.failureQueue = new DeadLetterQueue(this, 'StreamFailures', {
      holds: 'records of stream batches the relay gave up on: shard and sequence numbers, no content',
    });
    this.streamSource = new DynamoEventSource(props.table, {
      // From the oldest record still in the stream: a record relayed twice is harmless (consumers are
      // idempotent), a record skipped waits for the sweep.
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      filters: [OUTBOX_STREAM_FILTER],
      bisectBatchOnError: true,
      retryAttempts,
      maxRecordAge: props.maxRecordAge ?? Duration.hours(1),
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.failureQueue.queue),
    });
    this.relay.function.addEventSource(this.streamSource);
    Validations.of(this.relay.role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'From table.grantStreamRead, which the stream event source adds: dynamodb:ListStreams has no resource-level permissions; reading records is granted on this table’s stream only.',
    });

    this.sweepScheduleRole = new Role(this, 'SweepScheduleRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `EventBridge Scheduler invoking ${this.node.path}/Sweep`,
    });
    this.sweepSchedule = new Schedule(this, 'SweepSchedule', {
      description: 'Every minute: republish what is still in the outbox',
      schedule: ScheduleExpression.rate(Duration.minutes(1)),
      // A missed run is not retried: the next one covers the same items.
      target: new LambdaInvoke(this.sweep.function, {
        role: this.sweepScheduleRole,
        retryAttempts: 0,
        maxEventAge: Duration.minutes(1),
      }),
    });
    const sweepLogicalId = Stack.of(this).getLogicalId(this.sweep.function.node.defaultChild as CfnElement);
    Validations.of(this.sweepScheduleRole).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${sweepLogicalId}.Arn>:*]`,
      reason:
        'From the Scheduler LambdaInvoke target (function.grantInvoke): invoking the sweep function, any of its versions or aliases (`:*`), and nothing else.',
    });
  }
}
