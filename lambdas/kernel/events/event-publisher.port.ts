import type { RecordEvent } from './record-event.schema.ts';

/** Which of the events handed over could not be published (the rest were). */
export interface PublishOutcome {
  readonly failed: readonly RecordEvent[];
}

/** The event bus as the relay sees it: EventBridge in AWS, an in-process bus locally. */
export interface EventPublisher {
  publish(events: readonly RecordEvent[]): Promise<PublishOutcome>;
}
