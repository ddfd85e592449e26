import type { ValuesOf } from '../../kernel/config/config-section.ts';
import type { learningSettings } from './learning.config.ts';

/** Half-life of an observation's weight when competing values are compared; see `recencyWeight`. */
export const DEFAULT_RECENCY_HALF_LIFE_DAYS = 30;

export const DAY_MS = 86_400_000;

/**
 * The learning thresholds the merge and the gate read: the `learning` section as an agent sees it
 * (`learningSettings.of(config, agent)`), passed as is. `recencyHalfLifeDays` may be left out (tests do);
 * absent, it is `DEFAULT_RECENCY_HALF_LIFE_DAYS`, the configuration's default too.
 */
export type LearningSettings = Pick<
  ValuesOf<(typeof learningSettings)['fields']>,
  'minOccurrences' | 'windowDays' | 'minDistinctSessions' | 'decayAfterDays' | 'expireAfterDays'
> & { readonly recencyHalfLifeDays?: number | undefined };

/** How far back (from a belief's newest observation) individual observations are worth keeping. */
export const retentionHorizonDays = (settings: LearningSettings): number =>
  Math.max(settings.windowDays, settings.decayAfterDays, settings.expireAfterDays);

export const halfLifeDaysOf = (settings: LearningSettings): number =>
  settings.recencyHalfLifeDays ?? DEFAULT_RECENCY_HALF_LIFE_DAYS;
