import * as z from 'zod';
import { defineConfigSection } from './config-section.ts';

/*
 * The kernel's own settings. Each capability declares its own sections in its module; the service's
 * configuration document is composed from all of them (`composeConfiguration`). Operators override values
 * through an SSM parameter in AWS and a config file locally; absent fields take the defaults below.
 */

/** How long an Idempotency-Key is remembered. `retention` may vary per agent. */
export const kernelRetention = defineConfigSection({
  name: 'retention',
  perAgent: true,
  fields: {
    idempotencyKeyHours: z.number().int().min(1).max(168).default(24),
  },
});

/** The service's own housekeeping: how long the audit trail keeps an entry. */
export const kernelHousekeeping = defineConfigSection({
  name: 'housekeeping',
  fields: {
    /** Days an audit entry is kept. */
    auditRetentionDays: z.number().int().min(30).max(3650).default(400),
  },
});

/** One app client's own bound: requests a second, counted over one-second windows across every environment. */
const ClientBound = z
  .object({
    requestsPerSecond: z.number().int().min(1).max(100_000),
  })
  .strict();

/**
 * Each app client's bound, held across every execution environment by a shared count in the memory table
 * (README, "Per-client throttling"). The default keeps one client well below the stage's throttle (200 a
 * second), so no single agent application can take the whole stage; operators name the heavier clients.
 */
export const kernelThrottle = defineConfigSection({
  name: 'throttle',
  fields: {
    /** The bound of every app client `clients` does not name. */
    requestsPerSecond: z.number().int().min(1).max(100_000).default(100),
    /**
     * The most requests an execution environment leases at once: one storage write per lease. Larger leases
     * write less but can leave more of a window unspent in environments that do not need it.
     */
    leaseSize: z.number().int().min(1).max(1000).default(20),
    /** Bounds of single app clients, by the `client_id` their tokens carry. */
    clients: z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an app client id is 1-64 characters of A-Z, a-z, 0-9, _ or -'),
        ClientBound,
      )
      .default({}),
  },
});

/** Each after the capabilities' contributions to the same section, in the configuration document. */
export const KERNEL_CONFIG_SECTIONS = [kernelRetention, kernelHousekeeping, kernelThrottle] as const;
