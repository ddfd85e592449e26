import * as z from 'zod';
import { defineConfigSection } from '../../kernel/config/config-section.ts';

/** The retention sweep's horizon. */
export const housekeepingSettings = defineConfigSection({
  name: 'housekeeping',
  fields: {
    /** Days after a record's expiry (or its tombstone's) before the retention sweep purges every item of it. */
    purgeAfterDays: z.number().int().min(0).max(3650).default(30),
  },
});
