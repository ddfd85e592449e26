import { randomUUID } from 'node:crypto';
import {
  type EventBridgeClient,
  EventBridgeServiceException,
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
  ThrottlingException,
} from '@aws-sdk/client-eventbridge';
import type { RecordEvent } from '../../lambdas/kernel/events/record-event.schema.ts';

/** PutEvents takes 1 to 10 entries; anything else fails the whole call. */
const MAX_ENTRIES = 10;

/** An entry the bus accepted, as a rule on the bus would see it. */
export interface AcceptedEntry {
  readonly busName: string | undefined;
  readonly source: string;
  readonly detailType: string;
  /** The entry's `Time`, as sent (EventBridge stamps the time of the call when there is none). */
  readonly time: Date | undefined;
  readonly event: RecordEvent;
}

/** Errors as the SDK raises them for a failed call: a service exception with the AWS error name. */
const validationException = (message: string) =>
  new EventBridgeServiceException({
    name: 'ValidationException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400, requestId: randomUUID() },
    message,
  });

const throttlingException = () =>
  new ThrottlingException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400, requestId: randomUUID() } });

/**
 * EventBridge cannot run here: this is PutEvents as the SDK client's `send` answers it, with what the real
 * service does that the publisher relies on. A call with no entries or more than ten fails whole with a
 * ValidationException (as does one in which no entry has Source, DetailType and Detail); otherwise every
 * entry is answered in request order, an accepted one with an EventId, a refused one with an ErrorCode and
 * ErrorMessage (an entry lacking Source/DetailType/Detail: InvalidArgument; Detail not a JSON object:
 * MalformedDetail), and FailedEntryCount counts the refused. It can be told to refuse chosen entries (by
 * the event's id) and to throttle whole calls, to rehearse partial failures and outages; it records what it
 * accepted. Entry sizes and the bus's existence are not checked: the publisher relies on neither.
 */
export class EventBridgeStandIn {
  /** The client to hand the publisher. */
  readonly client: Pick<EventBridgeClient, 'send'>;
  /** What each call carried, as the ids of its entries' events, in call order (refused calls too). */
  readonly calls: string[][] = [];
  readonly #accepted: AcceptedEntry[] = [];
  readonly #refusals = new Map<string, { errorCode: string; remaining: number }>();
  #throttledCalls = 0;

  constructor() {
    this.client = { send: ((command: unknown) => this.#send(command)) as unknown as EventBridgeClient['send'] };
  }

  /** Entries the bus accepted, in the order it accepted them. */
  get accepted(): readonly AcceptedEntry[] {
    return this.#accepted;
  }

  /** Refuses the entry carrying `eventId` the next `times` it is sent (every time, by default). */
  refuse(eventId: string, options: { errorCode?: string; times?: number } = {}): void {
    this.#refusals.set(eventId, {
      errorCode: options.errorCode ?? 'InternalFailure',
      remaining: options.times ?? Number.POSITIVE_INFINITY,
    });
  }

  /** Fails the next `calls` calls whole with a ThrottlingException (every call, by default); 0 ends it. */
  throttle(calls = Number.POSITIVE_INFINITY): void {
    this.#throttledCalls = calls;
  }

  async #send(command: unknown): Promise<PutEventsCommandOutput> {
    if (!(command instanceof PutEventsCommand)) {
      throw new Error(`The EventBridge stand-in answers PutEvents only, not ${String(command?.constructor?.name)}`);
    }
    const entries = command.input.Entries ?? [];
    this.calls.push(entries.map((entry) => idOf(entry.Detail)));
    if (this.#throttledCalls > 0) {
      this.#throttledCalls -= 1;
      throw throttlingException();
    }
    if (entries.length < 1 || entries.length > MAX_ENTRIES) {
      throw validationException(
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length ` +
          `less than or equal to ${MAX_ENTRIES} and greater than or equal to 1 (was ${entries.length})`,
      );
    }
    if (!entries.some(isComplete)) {
      throw validationException('Parameter(s) Source, DetailType, Detail must be specified on at least one entry');
    }
    const results = entries.map((entry) => this.#answer(entry));
    return {
      FailedEntryCount: results.filter((result) => result.ErrorCode !== undefined).length,
      Entries: results,
      $metadata: { httpStatusCode: 200, requestId: randomUUID(), attempts: 1, totalRetryDelay: 0 },
    };
  }

  #answer(entry: PutEventsRequestEntry): PutEventsResultEntry {
    if (!isComplete(entry)) {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: 'Parameter(s) Source, DetailType, Detail must be specified',
      };
    }
    const event = detailOf(entry.Detail);
    if (event === undefined) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    const refusal = this.#refusals.get(event.event_id);
    if (refusal && refusal.remaining > 0) {
      refusal.remaining -= 1;
      return { ErrorCode: refusal.errorCode, ErrorMessage: `The stand-in was told to refuse ${event.event_id}` };
    }
    this.#accepted.push({
      busName: entry.EventBusName,
      source: entry.Source,
      detailType: entry.DetailType,
      time: entry.Time,
      event,
    });
    return { EventId: randomUUID() };
  }
}

const isComplete = (
  entry: PutEventsRequestEntry,
): entry is PutEventsRequestEntry & { Source: string; DetailType: string; Detail: string } =>
  Boolean(entry.Source && entry.DetailType && entry.Detail);

/** The event a Detail carries, or undefined when it is not a JSON object. */
const detailOf = (detail: string): RecordEvent | undefined => {
  try {
    const parsed: unknown = JSON.parse(detail);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as RecordEvent)
      : undefined;
  } catch {
    return undefined;
  }
};

const idOf = (detail: string | undefined): string => (detail && detailOf(detail)?.event_id) || '(no event)';
