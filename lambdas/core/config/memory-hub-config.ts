import { z } from 'zod';

/**
 * Every tunable of the service with its default, in one place. Operators override values through SSM
 * parameters in AWS and a config file locally; both are parsed with this schema, so an invalid value is
 * refused with the field that is wrong.
 */
export const MemoryHubConfig = z
  .object({
    retention: z
      .object({
        /** How long a note lives after its last revision. */
        noteHorizonDays: z.number().int().min(1).max(3650).default(365),
        /** How long an Idempotency-Key is remembered. */
        idempotencyKeyHours: z.number().int().min(1).max(168).default(24),
      })
      .strict()
      .prefault({}),
    http: z
      .object({
        /** Larger request bodies are refused with 413 before they are parsed. */
        maxBodyBytes: z.number().int().min(1024).max(1_048_576).default(65_536),
      })
      .strict()
      .prefault({}),
    listing: z
      .object({
        defaultPageSize: z.number().int().min(1).max(100).default(20),
        maxPageSize: z.number().int().min(1).max(100).default(100),
      })
      .strict()
      .prefault({}),
  })
  .strict();
export type MemoryHubConfig = z.infer<typeof MemoryHubConfig>;

export const DEFAULT_CONFIG: MemoryHubConfig = MemoryHubConfig.parse({});
