import * as z from 'zod';
import { defineConfigSection } from '../../kernel/config/config-section.ts';
import { MAX_RECENT_CONFIRMATIONS, MAX_SESSIONS_PER_VALUE } from './belief.schema.ts';

/**
 * When repeated observations mature into learned memory, and how learned memory fades. May vary per agent
 * (`agents.{agent}.learning`); each occurrence belongs to one session, and decay precedes expiry, checked on
 * the base values and on every agent's merged ones.
 */
export const learningSettings = defineConfigSection({
  name: 'learning',
  perAgent: true,
  fields: {
    /** Observations of the same thing needed before it matures (a belief keeps its newest 16 per value). */
    minOccurrences: z.number().int().min(1).max(MAX_RECENT_CONFIRMATIONS).default(3),
    /** Observations older than this no longer count towards maturation. */
    windowDays: z.number().int().min(1).max(3650).default(90),
    /** The observations must come from at least this many different sessions (a value keeps its newest 8). */
    minDistinctSessions: z.number().int().min(1).max(MAX_SESSIONS_PER_VALUE).default(2),
    /** Learned memory not reinforced for this long starts to decay. */
    decayAfterDays: z.number().int().min(1).max(3650).default(60),
    /** Learned memory not reinforced for this long expires. */
    expireAfterDays: z.number().int().min(1).max(3650).default(180),
    /** When competing values are weighed, an observation this old counts half as much as one made now. */
    recencyHalfLifeDays: z.number().int().min(1).max(3650).default(30),
    /** How long raw session events are kept. */
    sessionEventTtlDays: z.number().int().min(1).max(3650).default(30),
  },
  check: (learning, context) => {
    if (learning.minDistinctSessions > learning.minOccurrences)
      context.addIssue({
        code: 'custom',
        path: ['minDistinctSessions'],
        message: 'must not exceed learning.minOccurrences',
      });
    if (learning.decayAfterDays > learning.expireAfterDays)
      context.addIssue({
        code: 'custom',
        path: ['decayAfterDays'],
        message: 'must not exceed learning.expireAfterDays',
      });
  },
});
