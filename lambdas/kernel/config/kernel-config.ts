import { z } from 'zod';
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

export const httpSettings = defineConfigSection({
  name: 'http',
  fields: {
    /** Larger request bodies are refused with 413 before they are parsed. */
    maxBodyBytes: z.number().int().min(1024).max(1_048_576).default(65_536),
  },
});

export const listingSettings = defineConfigSection({
  name: 'listing',
  fields: {
    defaultPageSize: z.number().int().min(1).max(100).default(20),
    maxPageSize: z.number().int().min(1).max(100).default(100),
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

/** In the order the configuration document lists them (after the capabilities' sections of the same name). */
export const KERNEL_CONFIG_SECTIONS = [kernelRetention, httpSettings, listingSettings, kernelHousekeeping] as const;
