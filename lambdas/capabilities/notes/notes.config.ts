import * as z from 'zod';
import { defineConfigSection } from '../../kernel/config/config-section.ts';

/** How long a note lives after its last revision; may vary per agent. */
export const notesRetention = defineConfigSection({
  name: 'retention',
  perAgent: true,
  fields: {
    noteHorizonDays: z.number().int().min(1).max(3650).default(365),
  },
});
