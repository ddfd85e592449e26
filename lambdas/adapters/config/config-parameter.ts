/**
 * What the stack writes into `/memory-hub/{stage}/config` when it creates it, and never changes afterwards
 * (`lib/constructs/parameters.ts` holds the same text; a test keeps the two equal). It is, byte for byte, the
 * default document earlier releases wrote into the parameter (as 4233b7e deployed it), so upgrading a stack
 * leaves its parameter alone. The parameter holds only the operator's overrides, so this exact text, untouched,
 * means "nothing overridden": the defaults of the running release apply, not the ones frozen in it.
 */
export const INITIAL_PARAMETER_VALUE =
  '{"retention":{"noteHorizonDays":365,"idempotencyKeyHours":24},"learning":{"minOccurrences":3,"windowDays":90,"minDistinctSessions":2,"decayAfterDays":60,"expireAfterDays":180,"recencyHalfLifeDays":30,"sessionEventTtlDays":30},"http":{"maxBodyBytes":65536},"listing":{"defaultPageSize":20,"maxPageSize":100},"housekeeping":{"purgeAfterDays":30,"auditRetentionDays":400},"agents":{}}';

/** What the parameter's value is read as: the untouched initial document is an empty set of overrides. */
export const overridesIn = (parameterValue: string): string =>
  parameterValue === INITIAL_PARAMETER_VALUE ? '{}' : parameterValue;
