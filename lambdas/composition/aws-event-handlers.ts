/** How AWS events (a stream batch, a schedule, an EventBridge delivery, a Step Functions task) reach the kernel. */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import * as z from 'zod';
import { outboxMarkerOfImage } from '../adapters/dynamodb/dynamodb-outbox.ts';
import type { EventConsumer } from '../kernel/events/event-consumer.port.ts';
import type { OutboxRelay } from '../kernel/events/outbox-relay.ts';
import { RecordEvent } from '../kernel/events/record-event.schema.ts';
import type { StepInput, WorkflowStepExecutor } from '../kernel/workflows/workflow-step-executor.ts';

/** Events older than this are the sweep's: the stream path had its chance. */
export const SWEEP_MINIMUM_AGE_MS = 60_000;

/**
 * The table's stream, filtered to revisions as they are committed: publish the events their markers hold and
 * delete the markers.
 * Records whose publication failed are reported as batch item failures, so only they are retried.
 */
export const relayOutboxStreamHandler =
  (relay: OutboxRelay) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const marked = event.Records.flatMap((record) => {
      const marker = outboxMarkerOfImage((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>);
      return marker && record.eventID ? [{ marker, streamRecordId: record.eventID }] : [];
    });
    const { failedMarkers } = await relay.relayMarkers(marked.map(({ marker }) => marker));
    const failed = new Set(failedMarkers);
    return {
      batchItemFailures: marked
        .filter(({ marker }) => failed.has(marker))
        .map(({ streamRecordId }) => ({ itemIdentifier: streamRecordId })),
    };
  };

/** Every minute: publish whatever is still marked after a minute (a relay that died, a stream that lagged). */
export const sweepOutboxHandler = (relay: OutboxRelay) => async (): Promise<{ published: number; failed: number }> =>
  relay.sweep({ minimumAgeMs: SWEEP_MINIMUM_AGE_MS });

/**
 * An EventBridge rule target: hand the event to one consumer. A throw makes EventBridge retry (for up to
 * 24 hours) and then dead-letter it; consumers are idempotent, so retries are harmless.
 */
export const consumerHandler =
  (consumer: EventConsumer) =>
  async (event: EventBridgeEvent<string, unknown>): Promise<{ outcome: string }> => ({
    outcome: await consumer.consume(RecordEvent.parse(event.detail)),
  });

/**
 * The state machine's task payload. A step's input is the previous step's output; after a Catch it also
 * carries `failure: { failedStep, errorCode, cause }` (the cause is Lambda's error JSON: never shown or
 * stored, the run keeps the error class only).
 */
const StepRequest = z
  .object({
    workflow: z.string().min(1),
    step: z.string().min(1),
    runId: z.string().min(1).max(80),
    input: z.object({
      tenant: z.string().nullable().optional(),
      counts: z.record(z.string(), z.number()).optional(),
      failure: z.object({ failedStep: z.string(), errorCode: z.string() }).optional(),
    }),
  })
  .strict();

/** Validates the payload and runs one attempt of the step through the same executor the local runner uses. */
export const runWorkflowStepHandler =
  (executor: WorkflowStepExecutor) =>
  async (payload: unknown): Promise<StepInput> => {
    const { workflow, step, runId, input } = StepRequest.parse(payload);
    return executor.runStep({ workflow, step, runId, input });
  };
