import { Duration } from 'aws-cdk-lib';
import { type Archive, EventBus, type EventBusProps, type EventPattern, Match } from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';

/** The `Source` of every event the service publishes. */
export const EVENT_SOURCE = 'memory-hub';
/** Record events have a `DetailType` of `record.{created|revised|deleted|expired|…}` (the event's `event_type`). */
export const RECORD_EVENT_TYPE_PREFIX = 'record.';

/** Every record event the service publishes, whatever its type. */
export const RECORD_EVENTS_PATTERN: EventPattern = {
  source: [EVENT_SOURCE],
  detailType: Match.prefix(RECORD_EVENT_TYPE_PREFIX),
};

export interface MemoryHubEventBusProps {
  /** Deployment stage; the bus is `memory-hub-{stage}`. */
  readonly stage: string;
  /** How long archived events can be replayed. @default Duration.days(30) */
  readonly archiveRetention?: Duration;
  /** Overrides for the bus (e.g. `description`, `logConfig`); its name is fixed here. */
  readonly eventBusProps?: Omit<EventBusProps, 'eventBusName' | 'eventSourceName'>;
}

/**
 * The custom bus the outbox relay publishes record events to (`Source: memory-hub`, `DetailType` = the
 * event type, `Detail` = the event: ids, namespace hash, revision, never content), and an archive of
 * every `memory-hub` event so a consumer can be replayed after a fix or a new one back-filled.
 *
 * The bus keeps EventBridge's default encryption (an AWS-owned key): the events hold no record content,
 * and a customer-managed key would have to be opened to the EventBridge service principal for the bus,
 * the archive and every rule target.
 */
export class MemoryHubEventBus extends Construct {
  public readonly bus: EventBus;
  public readonly archive: Archive;

  constructor(scope: Construct, id: string, props: MemoryHubEventBusProps) {
    super(scope, id);
    const archiveRetention = props.archiveRetention ?? Duration.days(30);
    if (archiveRetention.toDays({ integral: false }) < 1) {
      throw new Error(`${this.node.path}: archive retention must be at least one day`);
    }
    this.bus = new EventBus(this, 'Bus', {
      description: `Memory Hub ${props.stage}: record events relayed from the table's outbox`,
      ...props.eventBusProps,
      eventBusName: `memory-hub-${props.stage}`,
    });
    this.archive = this.bus.archive('Archive', {
      description: `Every ${EVENT_SOURCE} event of memory-hub-${props.stage}, kept for replay`,
      eventPattern: { source: [EVENT_SOURCE] },
      retention: archiveRetention,
    });
  }
}
