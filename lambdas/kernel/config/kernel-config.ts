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

/** Each after the capabilities' contributions to the same section, in the configuration document. */
export const KERNEL_CONFIG_SECTIONS = [kernelRetention, kernelHousekeeping] as const;
