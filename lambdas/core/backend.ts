import type { MemoryHubConfig } from './config/memory-hub-config.ts';
import type { IdempotencyStore } from './idempotency/idempotency-store.port.ts';
import { NoteContent } from './notes/note.schema.ts';
import { NotesService } from './notes/notes-service.ts';
import type { Metrics } from './observability/metrics.port.ts';
import { RecordService } from './records/record-service.ts';
import type { RecordStore } from './records/record-store.port.ts';
import type { Clock } from './time/clock.ts';
import type { IdGenerator } from './time/ids.ts';

/** Everything a handler calls into; the same shape whether AWS or local adapters were wired. */
export interface Backend {
  readonly config: MemoryHubConfig;
  readonly metrics: Metrics;
  readonly notes: NotesService;
}

/** The ports one backend is made of; `createAwsBackend` and `createLocalBackend` differ only in these. */
export interface BackendPorts {
  readonly config: MemoryHubConfig;
  readonly metrics: Metrics;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly records: RecordStore;
  readonly idempotency: IdempotencyStore;
}

export const assembleBackend = (ports: BackendPorts): Backend => {
  const recordDependencies = {
    store: ports.records,
    idempotency: ports.idempotency,
    clock: ports.clock,
    ids: ports.ids,
    idempotencyKeyHours: () => ports.config.retention.idempotencyKeyHours,
  };
  return {
    config: ports.config,
    metrics: ports.metrics,
    notes: new NotesService(
      new RecordService(recordDependencies, {
        kind: 'note',
        content: NoteContent,
        horizonDays: () => ports.config.retention.noteHorizonDays,
      }),
    ),
  };
};
