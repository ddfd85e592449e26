import type { GetParameterCommand, GetParameterCommandOutput } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SSM_TTL_MS,
  SsmConfigProvider,
  type SsmParameterClient,
} from '../../../lambdas/adapters/config/ssm-config-provider.ts';
import { SERVICE_CONFIGURATION } from '../../../lambdas/app/service-tables.ts';
import { notesModule } from '../../../lambdas/capabilities/notes/notes.module.ts';
import { AwsEnvironment, awsApplication } from '../../../lambdas/composition/aws-application.ts';
import { listingSettings } from '../../../lambdas/http/http-config.ts';
import { ConfigUnavailableError } from '../../../lambdas/kernel/config/config.errors.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { describeConfigProviderContract } from '../../contract/config-provider.contract.ts';

const PARAMETER = '/memory-hub/test/config';

/** Stands in for SSM: one parameter, versioned like SSM versions it, and a switch to make every call fail. */
class FakeSsmClient implements SsmParameterClient {
  readonly requests: string[] = [];
  value: string | undefined;
  version = 0;
  failure: Error | undefined;

  publish(value: string): void {
    this.value = value;
    this.version += 1;
  }

  async send(command: GetParameterCommand): Promise<GetParameterCommandOutput> {
    this.requests.push(command.input.Name ?? '');
    // A real client answers asynchronously; so does the fake, so concurrent callers really overlap.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.failure) throw this.failure;
    if (this.value === undefined || command.input.Name !== PARAMETER)
      throw Object.assign(new Error(`Parameter ${command.input.Name} not found`), { name: 'ParameterNotFound' });
    return {
      $metadata: {},
      Parameter: { Name: PARAMETER, Type: 'String', Value: this.value, Version: this.version },
    };
  }
}

const sdkError = (name: string) => Object.assign(new Error(`${name} happened`), { name });

describeConfigProviderContract('SsmConfigProvider', async () => {
  const client = new FakeSsmClient();
  return {
    source: PARAMETER,
    ttlMs: DEFAULT_SSM_TTL_MS,
    publish: async (text) => {
      client.failure = undefined;
      client.publish(text);
    },
    breakSource: async () => {
      client.failure = sdkError('ThrottlingException');
    },
    load: (dependencies) =>
      SsmConfigProvider.load({
        parameterName: PARAMETER,
        client,
        configuration: SERVICE_CONFIGURATION,
        ...dependencies,
      }),
    close: async () => undefined,
  };
});

describe('Class: SsmConfigProvider', () => {
  const loaded = async (options: { ttlMs?: number } = {}) => {
    const client = new FakeSsmClient();
    client.publish('{"listing": {"defaultPageSize": 10}}');
    const clock = new ManualClock();
    const provider = await SsmConfigProvider.load({
      parameterName: PARAMETER,
      client,
      clock,
      configuration: SERVICE_CONFIGURATION,
      ...options,
    });
    return { client, clock, provider };
  };

  describe('Method: refresh', () => {
    it('asks SSM for the named parameter once per TTL, however often it is called', async () => {
      // Prepare
      const { client, clock, provider } = await loaded({ ttlMs: 5000 });

      // Act
      for (let call = 0; call < 15; call += 1) {
        await provider.refresh();
        clock.advance(400);
      }

      // Assess: calls every 400 ms for 6 s, so the load at 0 ms and one look (at 5200 ms)
      expect(client.requests).toEqual([PARAMETER, PARAMETER]);
    });

    it('shares one request between concurrent callers', async () => {
      const { client, clock, provider } = await loaded();
      client.publish('{"listing": {"defaultPageSize": 12}}');
      clock.advance(DEFAULT_SSM_TTL_MS);

      await Promise.all([provider.refresh(), provider.refresh(), provider.refresh()]);

      expect(client.requests).toHaveLength(2);
      expect(provider.current().listing.defaultPageSize).toBe(12);
    });

    it('waits a full TTL before asking again after a failed request', async () => {
      const { client, clock, provider } = await loaded();
      client.failure = sdkError('ThrottlingException');
      clock.advance(DEFAULT_SSM_TTL_MS);
      await provider.refresh();

      clock.advance(DEFAULT_SSM_TTL_MS - 1);
      await provider.refresh();

      expect(client.requests).toHaveLength(2);
      expect(provider.current().listing.defaultPageSize).toBe(10);
    });
  });

  describe('Method: load', () => {
    it('fails with the SDK error name when the parameter is missing, keeping the cause', async () => {
      const client = new FakeSsmClient();

      const loading = SsmConfigProvider.load({
        parameterName: PARAMETER,
        client,
        configuration: SERVICE_CONFIGURATION,
      });

      await expect(loading).rejects.toBeInstanceOf(ConfigUnavailableError);
      await expect(loading).rejects.toThrow(`Could not read configuration from ${PARAMETER}: ParameterNotFound`);
      await expect(loading).rejects.toHaveProperty('cause.name', 'ParameterNotFound');
    });
  });
});

describe('Function: awsApplication', () => {
  const environment = {
    MEMORY_HUB_STAGE: 'test',
    MEMORY_HUB_TABLE_NAME: 'memory-hub-test',
    MEMORY_HUB_KEY_ARN: 'arn:aws:kms:eu-west-1:111122223333:key/test',
    MEMORY_HUB_CONFIG_PARAMETER: PARAMETER,
  };

  it('reads the configuration parameter at init and serves it through the backend', async () => {
    // Prepare
    const ssm = new FakeSsmClient();
    ssm.publish('{"listing": {"defaultPageSize": 7}}');

    // Act
    const application = await awsApplication(environment, [notesModule], { ssm });

    // Assess
    expect(ssm.requests).toEqual([PARAMETER]);
    expect(listingSettings.of(application.service.kernel.config.current()).defaultPageSize).toBe(7);
  });

  it('fails the init when the parameter holds an invalid value', async () => {
    const ssm = new FakeSsmClient();
    ssm.publish('{"listing": {"defaultPageSize": 0}}');

    await expect(awsApplication(environment, [notesModule], { ssm })).rejects.toThrow(/listing\.defaultPageSize: /);
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
