import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONFIG,
  MemoryHubConfig,
  parseConfig,
  parseConfigDocument,
  settingsForAgent,
} from '../../../lambdas/app/service-tables.ts';
import { InvalidConfigError } from '../../../lambdas/kernel/config/config.errors.ts';

const problemsOf = (document: unknown): string[] => {
  try {
    parseConfig(document, 'test.json');
  } catch (error) {
    if (error instanceof InvalidConfigError) return error.problems.map(({ path, message }) => `${path}: ${message}`);
    throw error;
  }
  throw new Error('the document was accepted');
};

describe('Schema: MemoryHubConfig', () => {
  it('fills every setting from the defaults, including the learning thresholds', () => {
    // Act
    const config = MemoryHubConfig.parse({});

    // Assess
    expect(config).toEqual(DEFAULT_CONFIG);
    expect(config.learning).toEqual({
      minOccurrences: 3,
      windowDays: 90,
      minDistinctSessions: 2,
      decayAfterDays: 60,
      expireAfterDays: 180,
      recencyHalfLifeDays: 30,
      sessionEventTtlDays: 30,
    });
    expect(config.agents).toEqual({});
  });

  it('refuses thresholds a belief cannot count to: more occurrences or sessions than a value keeps', () => {
    const occurrences = MemoryHubConfig.safeParse({ learning: { minOccurrences: 17 } });
    const sessions = MemoryHubConfig.safeParse({ learning: { minDistinctSessions: 9, minOccurrences: 16 } });

    expect(occurrences.success).toBe(false);
    expect(occurrences.error?.issues[0]?.path).toEqual(['learning', 'minOccurrences']);
    expect(sessions.success).toBe(false);
    expect(sessions.error?.issues[0]?.path).toEqual(['learning', 'minDistinctSessions']);
  });

  it('keeps the values a document sets and defaults the rest of the same section', () => {
    const config = MemoryHubConfig.parse({ retention: { noteHorizonDays: 30 }, learning: { windowDays: 120 } });

    expect(config.retention).toEqual({ noteHorizonDays: 30, idempotencyKeyHours: 24 });
    expect(config.learning).toEqual({ ...DEFAULT_CONFIG.learning, windowDays: 120 });
  });

  it('keeps an agent override to what it names, without filling in defaults', () => {
    const config = MemoryHubConfig.parse({ agents: { coder: { learning: { minOccurrences: 5 } } } });

    expect(config.agents).toEqual({ coder: { learning: { minOccurrences: 5 } } });
  });

  it.each([
    [{ retention: { noteHorizonDays: 0 } }, 'retention.noteHorizonDays: Too small: expected number to be >=1'],
    [{ learning: { minOccurrences: 2.5 } }, 'learning.minOccurrences: Invalid input: expected int, received number'],
    [{ http: { maxBodyBytes: '64k' } }, 'http.maxBodyBytes: Invalid input: expected number, received string'],
    [{ retention: { noteHorizonDay: 3 } }, 'retention.noteHorizonDay: unknown setting'],
    [{ thresholds: {} }, 'thresholds: unknown setting'],
    [{ learning: { decayAfterDays: 200 } }, 'learning.decayAfterDays: must not exceed learning.expireAfterDays'],
    [{ learning: { minDistinctSessions: 4 } }, 'learning.minDistinctSessions: must not exceed learning.minOccurrences'],
    [
      { agents: { 'not an agent': {} } },
      'agents.not an agent: an agent name is 1-64 characters of A-Z, a-z, 0-9, _ or -',
    ],
    [{ agents: { coder: { http: { maxBodyBytes: 2048 } } } }, 'agents.coder.http: unknown setting'],
    [
      { agents: { coder: { retention: { noteHorizonDays: -1 } } } },
      'agents.coder.retention.noteHorizonDays: Too small',
    ],
    [
      { agents: { coder: { learning: { expireAfterDays: 30 } } } },
      'agents.coder.learning.decayAfterDays: must not exceed learning.expireAfterDays',
    ],
  ])('refuses %j, naming the field', (document, problem) => {
    expect(problemsOf(document).join('\n')).toContain(problem);
  });

  it('checks an agent override merged over the base, so a base change can make it invalid', () => {
    const overrides = { agents: { coder: { learning: { decayAfterDays: 150 } } } };

    expect(() => MemoryHubConfig.parse(overrides)).not.toThrow();
    expect(problemsOf({ ...overrides, learning: { expireAfterDays: 120 } })).toEqual([
      'agents.coder.learning.decayAfterDays: must not exceed learning.expireAfterDays',
    ]);
  });
});

describe('Function: settingsForAgent', () => {
  const config = MemoryHubConfig.parse({
    retention: { noteHorizonDays: 100 },
    learning: { minOccurrences: 4 },
    agents: {
      coder: { retention: { noteHorizonDays: 7 }, learning: { minOccurrences: 6, windowDays: 14 } },
      reviewer: { learning: { minDistinctSessions: 3 } },
    },
  });

  it('merges the agent overrides over the base values', () => {
    // Act
    const settings = settingsForAgent(config, 'coder');

    // Assess
    expect(settings.retention).toEqual({ noteHorizonDays: 7, idempotencyKeyHours: 24 });
    expect(settings.learning).toEqual({ ...DEFAULT_CONFIG.learning, minOccurrences: 6, windowDays: 14 });
  });

  it('inherits every setting an agent does not override from the base, not from the defaults', () => {
    const settings = settingsForAgent(config, 'reviewer');

    expect(settings.retention.noteHorizonDays).toBe(100);
    expect(settings.learning).toEqual({ ...DEFAULT_CONFIG.learning, minOccurrences: 4, minDistinctSessions: 3 });
  });

  it('answers the base values without an agent, for an agent without overrides and for inherited names', () => {
    const base = { retention: config.retention, learning: config.learning };

    expect(settingsForAgent(config)).toEqual(base);
    expect(settingsForAgent(config, 'planner')).toEqual(base);
    expect(settingsForAgent(config, 'constructor')).toEqual(base);
    expect(settingsForAgent(config, 'toString')).toEqual(base);
  });

  it('validates what it returns', () => {
    // Prepare: a hand-built config that never went through the schema
    const unchecked = { ...config, agents: { coder: { learning: { minOccurrences: 0 } } } };

    // Act / Assess
    expect(() => settingsForAgent(unchecked, 'coder')).toThrow(/minOccurrences/);
  });
});

describe('Function: parseConfigDocument', () => {
  it('names the source and every wrong field, in the start-up message format', () => {
    const parsing = () =>
      parseConfigDocument('{"retention": {"noteHorizonDays": 0}, "listing": {"maxPageSize": "many"}}', 'cfg.json');

    expect(parsing).toThrow(InvalidConfigError);
    expect(parsing).toThrow(
      /^Invalid configuration in cfg\.json: retention\.noteHorizonDays: .*; listing\.maxPageSize: /,
    );
  });

  it('refuses text that is not JSON', () => {
    expect(() => parseConfigDocument('retention: 3', 'cfg.json')).toThrow(
      /^Invalid configuration in cfg\.json: \(root\): not valid JSON/,
    );
  });
});

describe('Function: parseConfig', () => {
  it('returns a configuration that cannot be changed in place, like the defaults', () => {
    const config = parseConfig({ agents: { coder: { learning: { minOccurrences: 5 } } } }, 'test.json');

    expect(() => {
      config.retention.noteHorizonDays = 1;
    }).toThrow(TypeError);
    expect(Object.isFrozen(config.agents.coder?.learning)).toBe(true);
    expect(Object.isFrozen(DEFAULT_CONFIG.learning)).toBe(true);
  });
});

describe('Section: throttle', () => {
  it('keeps a bound per app client and the default for the others', () => {
    const config = parseConfig(
      { throttle: { requestsPerSecond: 10, clients: { 'planner-app': { requestsPerSecond: 50 } } } },
      'test.json',
    );

    expect(config.throttle).toEqual({
      requestsPerSecond: 10,
      leaseSize: DEFAULT_CONFIG.throttle.leaseSize,
      clients: { 'planner-app': { requestsPerSecond: 50 } },
    });
  });

  it('refuses a bound that could never admit a request, a fraction, an incomplete one and a client id no token carries', () => {
    expect(
      problemsOf({
        throttle: {
          requestsPerSecond: 0,
          leaseSize: 0,
          clients: { 'coder-app': { requestsPerSecond: 2.5 }, 'half-app': { burst: 3 }, 'a b': {} },
        },
      }),
    ).toEqual([
      expect.stringMatching(/^throttle\.requestsPerSecond: /),
      expect.stringMatching(/^throttle\.leaseSize: /),
      expect.stringMatching(/^throttle\.clients\.coder-app\.requestsPerSecond: /),
      expect.stringMatching(/^throttle\.clients\.half-app\.requestsPerSecond: /),
      // Windows of one second leave no burst to set.
      'throttle.clients.half-app.burst: unknown setting',
      'throttle.clients.a b: an app client id is 1-64 characters of A-Z, a-z, 0-9, _ or -',
    ]);
  });
});
