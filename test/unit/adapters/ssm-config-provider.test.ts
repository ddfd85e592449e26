import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { INITIAL_PARAMETER_VALUE } from '../../../lambdas/adapters/config/config-parameter.ts';
import {
  DEFAULT_SSM_TTL_MS,
  SsmConfigProvider,
  type SsmConfigProviderOptions,
} from '../../../lambdas/adapters/config/ssm-config-provider.ts';
import { InMemoryMetrics } from '../../../lambdas/adapters/observability/in-memory-metrics.ts';
import { jsonLinesLog } from '../../../lambdas/adapters/observability/json-lines-log.ts';
import { CAPABILITIES } from '../../../lambdas/app/capabilities.ts';
import { DEFAULT_CONFIG, type MemoryHubConfig, SERVICE_CONFIGURATION } from '../../../lambdas/app/service-tables.ts';
import { notesModule } from '../../../lambdas/capabilities/notes/notes.module.ts';
import { AwsEnvironment, awsApplication } from '../../../lambdas/composition/aws-application.ts';
import { serviceConfigSectionsOf } from '../../../lambdas/composition/module-tables.ts';
import { listingSettings } from '../../../lambdas/http/http-config.ts';
import { composeConfiguration } from '../../../lambdas/kernel/config/compose-config.ts';
import { defineConfigSection } from '../../../lambdas/kernel/config/config-section.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { describeConfigProviderContract } from '../../contract/config-provider.contract.ts';
import { describeParameterReaderContract } from '../../contract/parameter-reader.contract.ts';
import { apiEvent } from '../../support/api-events.ts';
import { FakeParameterReader } from '../../support/fake-parameter-reader.ts';

const PARAMETER = '/memory-hub/test/config';

/** What the extension's adapter reports when SSM fails behind it (it answers anything but 200). */
const SSM_FAILING = 'extension answered 500';

describeParameterReaderContract('FakeParameterReader', async () => {
  const reader = new FakeParameterReader();
  return {
    reader,
    publish: async (name, value) => reader.publish(name, value),
    breakSource: async (broken) => {
      reader.failure = broken ? SSM_FAILING : undefined;
    },
    hang: async () => {
      reader.hanging = true;
    },
    close: async () => undefined,
  };
});

/** The provider as the first request of a cold instance leaves it: its one read made. */
const readOnce = async (options: SsmConfigProviderOptions<MemoryHubConfig>) => {
  const provider = SsmConfigProvider.create(options);
  await provider.refresh();
  return provider;
};

describeConfigProviderContract('SsmConfigProvider', async () => {
  const client = new FakeParameterReader();
  return {
    source: PARAMETER,
    ttlMs: DEFAULT_SSM_TTL_MS,
    publish: async (text) => {
      client.failure = undefined;
      client.publish(PARAMETER, text);
    },
    breakSource: async () => {
      client.failure = SSM_FAILING;
    },
    load: (dependencies) =>
      readOnce({ parameterName: PARAMETER, client, configuration: SERVICE_CONFIGURATION, ...dependencies }),
    // Reads after the first run in the background: the contract waits for them to land.
    refreshed: async (provider) => {
      await provider.refresh();
      await (provider as SsmConfigProvider<MemoryHubConfig>).settled();
    },
    close: async () => undefined,
  };
});

describe('Class: SsmConfigProvider', () => {
  const observed = () => {
    const metrics = new InMemoryMetrics();
    const warnings: string[] = [];
    return { metrics, warnings, log: jsonLinesLog((line) => warnings.push(line)) };
  };

  const started = (client: FakeParameterReader, options: Partial<SsmConfigProviderOptions<MemoryHubConfig>> = {}) => {
    const clock = new ManualClock();
    const { metrics, warnings, log } = observed();
    const provider = SsmConfigProvider.create({
      parameterName: PARAMETER,
      client,
      clock,
      metrics,
      log,
      configuration: SERVICE_CONFIGURATION,
      ...options,
    });
    return { client, clock, metrics, warnings, provider };
  };

  describe('Method: create', () => {
    it('makes no SSM call: until the first request, the configuration deployed with the function is in force', () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 10}}');

      // Act
      const { provider } = started(client);

      // Assess
      expect(client.requests).toEqual([]);
      expect(provider.current()).toEqual(DEFAULT_CONFIG);
    });
  });

  describe('Method: refresh (the first request of an instance)', () => {
    it('waits for one read and answers the overrides merged over the defaults', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(
        PARAMETER,
        '{"listing": {"defaultPageSize": 10}, "agents": {"coder": {"learning": {"minOccurrences": 5}}}}',
      );
      const { provider, metrics } = started(client);

      // Act
      await provider.refresh();

      // Assess
      expect(client.requests).toEqual([PARAMETER]);
      expect(provider.current().listing).toEqual({ ...DEFAULT_CONFIG.listing, defaultPageSize: 10 });
      expect(provider.current().learning).toEqual(DEFAULT_CONFIG.learning);
      expect(provider.current().agents).toEqual({ coder: { learning: { minOccurrences: 5 } } });
      expect(metrics.countOf('config.first_read_fallback')).toBe(0);
    });

    it('goes ahead on the deployed defaults when SSM throttles, counted and logged without the value', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 10}}');
      client.failure = SSM_FAILING;
      const { provider, metrics, warnings } = started(client);

      // Act
      await provider.refresh();

      // Assess
      expect(provider.current()).toEqual(DEFAULT_CONFIG);
      expect(metrics.countOf('config.first_read_fallback')).toBe(1);
      expect(metrics.countOf('config.refresh_failed')).toBe(1);
      expect(warnings.map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({ level: 'warn', source: PARAMETER, reason: SSM_FAILING }),
      ]);
      expect(warnings.join('\n')).not.toContain('defaultPageSize');
    });

    it('waits no longer than its read timeout when SSM does not answer, then goes ahead on the defaults', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 10}}');
      client.hold();
      const { provider, metrics, warnings } = started(client, { readTimeoutMs: 30 });
      const startedAt = performance.now();

      // Act
      await provider.refresh();

      // Assess
      expect(performance.now() - startedAt).toBeLessThan(1000);
      expect(provider.current()).toEqual(DEFAULT_CONFIG);
      expect(metrics.countOf('config.first_read_fallback')).toBe(1);
      expect(JSON.parse(warnings[0] as string)).toMatchObject({ source: PARAMETER, reason: 'timeout' });
      client.release();
    });

    it('keeps the deployed defaults when the override document is invalid, and never fails the request', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 0}, "learning": {"windowDays": "soon"}}');
      const { provider, metrics, warnings } = started(client);

      // Act
      const refreshing = provider.refresh();

      // Assess
      await expect(refreshing).resolves.toBeUndefined();
      expect(provider.current()).toEqual(DEFAULT_CONFIG);
      expect(metrics.countOf('config.invalid_rejected')).toBe(1);
      expect(metrics.countOf('config.first_read_fallback')).toBe(1);
      expect(JSON.parse(warnings[0] as string)).toMatchObject({
        source: PARAMETER,
        fields: ['learning.windowDays', 'listing.defaultPageSize'],
      });
      expect(warnings[0]).not.toContain('soon');
    });

    it('makes the requests that arrive during the first read wait for that one read', async () => {
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 12}}');
      const { provider } = started(client);

      await Promise.all([provider.refresh(), provider.refresh(), provider.refresh()]);

      expect(client.requests).toHaveLength(1);
      expect(provider.current().listing.defaultPageSize).toBe(12);
    });
  });

  describe('Method: refresh (later requests)', () => {
    it('does not make a request wait for a read after the first: the new value lands in the background', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 10}}');
      const { provider, clock } = started(client);
      await provider.refresh();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 11}}');
      client.hold();
      clock.advance(DEFAULT_SSM_TTL_MS);

      // Act
      await provider.refresh();
      const whileReading = provider.current().listing.defaultPageSize;
      client.release();
      await provider.settled();

      // Assess
      expect(client.requests).toHaveLength(2);
      expect(whileReading).toBe(10);
      expect(provider.current().listing.defaultPageSize).toBe(11);
    });

    it('lets a background read take as long as it takes: a frozen environment thaws long after any timeout', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 10}}');
      const { provider, clock, metrics } = started(client, { readTimeoutMs: 20 });
      await provider.refresh();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 11}}');
      client.hold();
      clock.advance(DEFAULT_SSM_TTL_MS);
      await provider.refresh();

      // Act: SSM answers well after the read timeout
      await new Promise((resolve) => setTimeout(resolve, 80));
      client.release();
      await provider.settled();

      // Assess
      expect(provider.current().listing.defaultPageSize).toBe(11);
      expect(metrics.countOf('config.refresh_failed')).toBe(0);
    });

    it('does not let a background read that never answers stop the reads after it', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 10}}');
      const { provider, clock } = started(client);
      await provider.refresh();
      client.hanging = true;
      clock.advance(DEFAULT_SSM_TTL_MS);
      await provider.refresh();

      // Act: a TTL later SSM answers again; the read it left hanging never will
      client.hanging = false;
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 12}}');
      clock.advance(DEFAULT_SSM_TTL_MS);
      await provider.refresh();
      await new Promise((resolve) => setTimeout(resolve, 20));

      // Assess
      expect(client.requests).toHaveLength(3);
      expect(provider.current().listing.defaultPageSize).toBe(12);
    });

    it('asks SSM for the named parameter once per TTL, however often it is called', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{}');
      const { provider, clock } = started(client, { ttlMs: 5000 });

      // Act
      for (let call = 0; call < 15; call += 1) {
        await provider.refresh();
        await provider.settled();
        clock.advance(400);
      }

      // Assess: calls every 400 ms for 6 s, so the first read at 0 ms and one more (at 5200 ms)
      expect(client.requests).toEqual([PARAMETER, PARAMETER]);
    });

    it('waits a full TTL before asking again after a failed request', async () => {
      const client = new FakeParameterReader();
      client.publish(PARAMETER, '{"listing": {"defaultPageSize": 10}}');
      const { provider, clock } = started(client);
      await provider.refresh();
      client.failure = SSM_FAILING;
      clock.advance(DEFAULT_SSM_TTL_MS);
      await provider.refresh();
      await provider.settled();

      clock.advance(DEFAULT_SSM_TTL_MS - 1);
      await provider.refresh();
      await provider.settled();

      expect(client.requests).toHaveLength(2);
      expect(provider.current().listing.defaultPageSize).toBe(10);
    });

    it('holds a burst of cold starts against a throttling SSM to one call per instance', async () => {
      // Prepare: 50 instances start at once and SSM throttles every call
      const client = new FakeParameterReader();
      client.failure = SSM_FAILING;
      const instances = Array.from({ length: 50 }, () => started(client));

      // Act: each serves ten requests
      for (let request = 0; request < 10; request += 1)
        await Promise.all(instances.map(async ({ provider }) => provider.refresh()));

      // Assess
      expect(client.requests).toHaveLength(50);
      for (const { provider } of instances) expect(provider.current()).toEqual(DEFAULT_CONFIG);
    });
  });

  describe('Upgrade: a parameter that holds a whole document', () => {
    // A service whose default page size moved on from the 20 earlier releases wrote into the parameter.
    const movedOn = composeConfiguration([
      ...serviceConfigSectionsOf(CAPABILITIES).filter((section) => section !== listingSettings),
      defineConfigSection({
        name: 'listing',
        fields: {
          defaultPageSize: z.number().int().min(1).max(100).default(50),
          maxPageSize: z.number().int().min(1).max(100).default(100),
        },
      }),
    ]);

    it('reads the document earlier releases wrote, untouched, as no overrides: the defaults of this release apply', async () => {
      // Prepare
      const client = new FakeParameterReader();
      client.publish(PARAMETER, INITIAL_PARAMETER_VALUE);

      // Act
      const provider = SsmConfigProvider.create({ parameterName: PARAMETER, client, configuration: movedOn });
      await provider.refresh();

      // Assess
      expect(provider.current()).toEqual(movedOn.defaults);
      expect((provider.current().listing as { defaultPageSize: number }).defaultPageSize).toBe(50);
    });

    it('reads a whole document an operator tuned as a complete set of overrides: valid, applied as written', async () => {
      // Prepare
      const tuned = JSON.parse(INITIAL_PARAMETER_VALUE) as { learning: { windowDays: number } };
      tuned.learning.windowDays = 120;
      const client = new FakeParameterReader();
      client.publish(PARAMETER, JSON.stringify(tuned));
      const { metrics, log } = observed();

      // Act
      const provider = SsmConfigProvider.create({
        parameterName: PARAMETER,
        client,
        configuration: movedOn,
        metrics,
        log,
      });
      await provider.refresh();

      // Assess
      const current = provider.current() as { learning: { windowDays: number }; listing: { defaultPageSize: number } };
      expect(current.learning.windowDays).toBe(120);
      expect(current.listing.defaultPageSize).toBe(20);
      expect(metrics.countOf('config.invalid_rejected')).toBe(0);
    });
  });
});

describe('Function: awsApplication', () => {
  const environment = {
    MEMORY_HUB_STAGE: 'test',
    MEMORY_HUB_TABLE_NAME: 'memory-hub-test',
    MEMORY_HUB_KEY_ARN: 'arn:aws:kms:eu-west-1:111122223333:key/test',
    MEMORY_HUB_BRANCH_KEY_TABLE_NAME: 'memory-hub-test-branch-keys',
    MEMORY_HUB_BRANCH_KEY_STORE_NAME: 'memory-hub-test',
    MEMORY_HUB_CONFIG_PARAMETER: PARAMETER,
  };
  const context = { awsRequestId: 'invocation-1', functionName: 'memory-hub-test-listNotes' } as unknown as Context;

  it('makes no SSM call at init; the first request reads the parameter once, and its settings are in force', async () => {
    // Prepare
    const ssm = new FakeParameterReader();
    ssm.publish(PARAMETER, '{"listing": {"defaultPageSize": 7}}');

    // Act
    const application = await awsApplication(environment, [notesModule], { parameters: ssm });
    const atInit = [...ssm.requests];
    const config = application.service.kernel.config;
    const beforeFirstRequest = listingSettings.of(config.current()).defaultPageSize;
    // No claims: the request is refused before it reaches storage, after the configuration is read.
    const answer = await application.handler('listNotes')(
      apiEvent('GET /v1/notes', { requestContext: { requestId: 'r-1' } as never }),
      context,
    );

    // Assess
    expect(atInit).toEqual([]);
    expect(beforeFirstRequest).toBe(DEFAULT_CONFIG.listing.defaultPageSize);
    expect(answer.statusCode).toBe(401);
    expect(ssm.requests).toEqual([PARAMETER]);
    expect(listingSettings.of(config.current()).defaultPageSize).toBe(7);
  });

  it('starts, and answers, when the parameter holds an invalid value: the deployed defaults stay in force', async () => {
    // Prepare
    const ssm = new FakeParameterReader();
    ssm.publish(PARAMETER, '{"listing": {"defaultPageSize": 0}}');

    // Act
    const application = await awsApplication(environment, [notesModule], { parameters: ssm });
    const answer = await application.handler('listNotes')(
      apiEvent('GET /v1/notes', { requestContext: { requestId: 'r-2' } as never }),
      context,
    );

    // Assess
    expect(answer.statusCode).toBe(401);
    expect(application.service.kernel.config.current().listing).toEqual(DEFAULT_CONFIG.listing);
  });

  it('reads the parameter before a function that is not an API operation does its work', async () => {
    // Prepare
    const ssm = new FakeParameterReader();
    ssm.publish(PARAMETER, '{"listing": {"defaultPageSize": 7}}');
    const application = await awsApplication(environment, [notesModule], { parameters: ssm });

    // Act: a step input the executor refuses, after the configuration was read
    await expect(application.runWorkflowStep({}, context)).rejects.toThrow();

    // Assess
    expect(ssm.requests).toEqual([PARAMETER]);
    expect(listingSettings.of(application.service.kernel.config.current()).defaultPageSize).toBe(7);
  });

  it("refuses an environment without a configuration parameter, or with another stage's", () => {
    const { MEMORY_HUB_CONFIG_PARAMETER: _, ...withoutParameter } = environment;

    expect(AwsEnvironment.safeParse(withoutParameter).success).toBe(false);
    expect(AwsEnvironment.safeParse({}).success).toBe(false);
    expect(
      AwsEnvironment.safeParse({ ...environment, MEMORY_HUB_CONFIG_PARAMETER: '/memory-hub/prod/config' }).error
        ?.issues,
    ).toEqual([expect.objectContaining({ path: ['MEMORY_HUB_CONFIG_PARAMETER'] })]);
  });
});
