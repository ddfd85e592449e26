import { z } from 'zod';
import { SAFE_TOKEN } from '../identity/verified-claims.ts';
import { MAX_RECENT_CONFIRMATIONS, MAX_SESSIONS_PER_VALUE } from '../learning/belief.schema.ts';

/*
 * Every tunable of the service with its default, in one place. Operators override values through an SSM
 * parameter in AWS and a config file locally; both are parsed with `MemoryHubConfig`, so an invalid value is
 * refused with the field that is wrong. A document only names what it changes: absent fields take the
 * defaults below, unknown fields are refused.
 */

/** How long things are kept. May vary per agent. */
const RetentionSettings = z
  .object({
    /** How long a note lives after its last revision. */
    noteHorizonDays: z.number().int().min(1).max(3650).default(365),
    /** How long an Idempotency-Key is remembered. */
    idempotencyKeyHours: z.number().int().min(1).max(168).default(24),
  })
  .strict();

/** When repeated observations mature into learned memory, and how learned memory fades. May vary per agent. */
const LearningSettings = z
  .object({
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
  })
  .strict();

/** Each occurrence belongs to one session, and decay precedes expiry; checked on every effective value. */
const consistentLearning = (learning: z.infer<typeof LearningSettings>, context: z.RefinementCtx) => {
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
};

const ConsistentLearningSettings = LearningSettings.superRefine(consistentLearning);

/** The settings that may differ from one agent to another. */
export const AgentSettings = z
  .object({
    retention: RetentionSettings.prefault({}),
    learning: ConsistentLearningSettings.prefault({}),
  })
  .strict();
export type AgentSettings = z.infer<typeof AgentSettings>;

/** A section's fields, each optional and without its default: an override names only what it changes. */
const overridesOf = <Shape extends Record<string, z.ZodDefault<z.ZodNumber>>>(section: z.ZodObject<Shape>) =>
  z
    .object(
      Object.fromEntries(
        Object.entries(section.shape).map(([name, field]) => [name, field.removeDefault().optional()]),
      ),
    )
    .strict() as unknown as z.ZodObject<{ [Name in keyof Shape]: z.ZodOptional<z.ZodNumber> }, z.core.$strict>;

const AgentOverrides = z
  .object({
    retention: overridesOf(RetentionSettings).optional(),
    learning: overridesOf(LearningSettings).optional(),
  })
  .strict();
export type AgentOverrides = z.infer<typeof AgentOverrides>;

const mergeOverrides = (config: AgentSettings, overrides: AgentOverrides) => ({
  retention: { ...config.retention, ...overrides.retention },
  learning: { ...config.learning, ...overrides.learning },
});

/** The same names the `?agent=` narrowing accepts. */
const AgentName = z.string().regex(SAFE_TOKEN, 'an agent name is 1-64 characters of A-Z, a-z, 0-9, _ or -');

export const MemoryHubConfig = z
  .object({
    retention: RetentionSettings.prefault({}),
    learning: ConsistentLearningSettings.prefault({}),
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
    /** Organisation-wide horizons of the service's own housekeeping. */
    housekeeping: z
      .object({
        /** Days after a record's expiry (or its tombstone's) before the retention sweep purges every item of it. */
        purgeAfterDays: z.number().int().min(0).max(3650).default(30),
        /** Days an audit entry is kept. */
        auditRetentionDays: z.number().int().min(30).max(3650).default(400),
      })
      .strict()
      .prefault({}),
    /** Per-agent overrides of `retention` and `learning`, by agent name; checked merged over the base. */
    agents: z.record(AgentName, AgentOverrides).default({}),
  })
  .strict()
  .superRefine((config, context) => {
    for (const [agent, overrides] of Object.entries(config.agents)) {
      const merged = AgentSettings.safeParse(mergeOverrides(config, overrides));
      if (merged.success) continue;
      for (const issue of merged.error.issues)
        context.addIssue({ code: 'custom', path: ['agents', agent, ...issue.path], message: issue.message });
    }
  });
export type MemoryHubConfig = z.infer<typeof MemoryHubConfig>;

/**
 * Freezes a parsed configuration all the way down. Providers hand out one object to every request and
 * `settingsForAgent` caches by object, so nothing may change one in place.
 */
export const frozenConfig = <T extends object>(value: T): T => {
  for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) frozenConfig(child);
  return Object.freeze(value);
};

export const DEFAULT_CONFIG: MemoryHubConfig = frozenConfig(MemoryHubConfig.parse({}));

const effectiveByConfig = new WeakMap<MemoryHubConfig, Map<string, AgentSettings>>();

/**
 * The settings in force for `agent`: its overrides merged over the base values, validated. Without an agent,
 * or for an agent without overrides, the base values. Results are kept per config object, so calling this
 * on every request costs a map lookup.
 */
export const settingsForAgent = (config: MemoryHubConfig, agent?: string): AgentSettings => {
  // `hasOwn`: an agent called `constructor` must not find Object.prototype's.
  const overrides = agent !== undefined && Object.hasOwn(config.agents, agent) ? config.agents[agent] : undefined;
  if (agent === undefined || overrides === undefined) return { retention: config.retention, learning: config.learning };
  let effective = effectiveByConfig.get(config);
  if (!effective) {
    effective = new Map();
    effectiveByConfig.set(config, effective);
  }
  let settings = effective.get(agent);
  if (!settings) {
    settings = AgentSettings.parse(mergeOverrides(config, overrides));
    effective.set(agent, settings);
  }
  return settings;
};

/** Where `npm run generate` writes the defaults; CDK creates the SSM parameter from it. */
export const DEFAULT_CONFIG_DOCUMENT_PATH = 'lambdas/core/config/default-config.json';

/** The defaults as the document an operator would write. */
export const defaultConfigDocument = (): MemoryHubConfig => MemoryHubConfig.parse({});
