import * as z from 'zod';
import { defineConfigSection } from '../kernel/config/config-section.ts';

/* The HTTP layer's own settings, read by the request middleware and the listings' page size. */

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

export const HTTP_CONFIG_SECTIONS = [httpSettings, listingSettings] as const;
