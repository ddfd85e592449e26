import { Duration, Validations } from 'aws-cdk-lib';
import { type EventPattern, type IEventBus, Match, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { type BackendResources, backendEnvironment, grantBackendAccess } from '../backend-access.ts';
import { pascalCase } from '../construct-ids.ts';
import { DeadLetterQueue } from './dead-letter-queue.ts';
import { RECORD_EVENTS_PATTERN } from './event-bus.ts';
import { ServiceFunction } from './service-function.ts';

/** How long EventBridge keeps trying to deliver an event to a consumer. */
export const DELIVERY_WINDOW = Duration.hours(24);
/** EventBridge's maximum: within the 24-hour window, the window is what bounds delivery. */
export const DELIVERY_RETRY_ATTEMPTS = 185;

/**
 * Record events, less those of the kinds a consumer ignores. The rule names what it leaves out rather than what
 * it lets in, so an event of a kind the rule does not know yet (a module deployed before its rule is updated)
 * still reaches the consumer, which decides as it always did.
 */
export function recordEventsPattern(ignoredRecordKinds: readonly string[]): EventPattern {
  if (ignoredRecordKinds.length === 0) return RECORD_EVENTS_PATTERN;
  return { ...RECORD_EVENTS_PATTERN, detail: { record_kind: Match.anythingBut(...ignoredRecordKinds) } };
}

export interface EventConsumerProps extends BackendResources {
  /** Absolute path of the entry module. */
  readonly entry: string;
  /** The exported handler. */
  readonly handler: string;
  readonly description: string;
  /** The bus whose record events the consumer receives. */
  readonly eventBus: IEventBus;
  /**
   * Record kinds whose events the consumer ignores: the rule leaves them out, so it is never invoked for them.
   * @default none
   */
  readonly ignoredRecordKinds?: readonly string[];
}

/**
 * One consumer of record events: a rule on the bus (`source: memory-hub`, `detail-type` prefix `record.`, less
 * the kinds the consumer ignores) targeting a function, and one dead-letter queue for everything the consumer
 * did not get to handle.
 *
 * Two stages can fail, and both end in the same queue with the event itself as the message body, so a
 * replay is the same for both (send the body back to the bus):
 * - EventBridge cannot invoke the function (throttling, permissions): it retries for 24 hours;
 * - the function fails on the event: Lambda retries the asynchronous invocation twice.
 * Consumers are idempotent and revision-aware, so redelivery and replay are safe.
 */
export class EventConsumer extends Construct {
  public readonly consumer: ServiceFunction;
  public readonly rule: Rule;
  public readonly deadLetterQueue: DeadLetterQueue;

  constructor(scope: Construct, id: string, props: EventConsumerProps) {
    super(scope, id);
    this.deadLetterQueue = new DeadLetterQueue(this, 'DeadLetterQueue', {
      holds: `record events ${props.handler} did not handle, each message the event itself, replayable to the bus`,
      isLambdaDeadLetterQueue: true,
    });
    this.consumer = new ServiceFunction(this, 'Consumer', {
      entry: props.entry,
      handler: props.handler,
      description: props.description,
      synchronous: false,
      timeout: Duration.seconds(30),
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      deadLetterQueue: this.deadLetterQueue.queue,
      environment: backendEnvironment(props, 'write'),
      readsParameters: true,
    });
    grantBackendAccess(this.consumer, props, 'write');
    Validations.of(this.consumer.function).acknowledge({
      id: 'Serverless::Serverless-LambdaAsyncFailureDestination',
      reason:
        'Failed invocations go to the dead-letter queue (DeadLetterConfig), not an on-failure destination: its message is the event itself, as the rule target writes it, so both failure paths share one queue and one replay; a destination would wrap it in an invocation record.',
    });

    this.rule = new Rule(this, 'Rule', {
      description: `Record events to ${props.handler}`,
      eventBus: props.eventBus,
      eventPattern: recordEventsPattern(props.ignoredRecordKinds ?? []),
      targets: [
        new LambdaFunction(this.consumer.function, {
          retryAttempts: DELIVERY_RETRY_ATTEMPTS,
          maxEventAge: DELIVERY_WINDOW,
          deadLetterQueue: this.deadLetterQueue.queue,
        }),
      ],
    });
  }
}

export interface EventConsumersProps extends BackendResources {
  /** Every consumer of the deployment document, each with the absolute path of the entry exporting it. */
  readonly consumers: readonly Pick<EventConsumerProps, 'entry' | 'handler' | 'description' | 'ignoredRecordKinds'>[];
  readonly eventBus: IEventBus;
}

/**
 * The consumers of record events, as the deployment document lists them (each capability module's; the relay
 * projects heads itself): each with its own rule, function and dead-letter queue.
 */
export class EventConsumers extends Construct {
  /** By exported handler name, e.g. `searchIndexConsumer`, `recordAudit`. */
  public readonly byHandler: ReadonlyMap<string, EventConsumer>;

  constructor(scope: Construct, id: string, props: EventConsumersProps) {
    super(scope, id);
    const byHandler = new Map<string, EventConsumer>();
    for (const consumer of props.consumers) {
      byHandler.set(
        consumer.handler,
        new EventConsumer(this, pascalCase(consumer.handler), {
          ...props,
          entry: consumer.entry,
          handler: consumer.handler,
          description: consumer.description,
          ignoredRecordKinds: consumer.ignoredRecordKinds,
        }),
      );
    }
    this.byHandler = byHandler;
  }

  /** The consumer exported as `handler`; throws when the deployment has none. */
  consumer(handler: string): EventConsumer {
    const found = this.byHandler.get(handler);
    if (!found) throw new Error(`The deployment has no consumer exported as ${handler}`);
    return found;
  }
}
