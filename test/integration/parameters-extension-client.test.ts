import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ParameterReadError } from '../../lambdas/adapters/config/parameter-reader.ts';
import {
  PARAMETERS_EXTENSION_DEFAULT_PORT,
  ParametersExtensionClient,
  parametersExtensionClient,
} from '../../lambdas/adapters/config/parameters-extension-client.ts';
import { DEFAULT_SSM_TTL_MS, SsmConfigProvider } from '../../lambdas/adapters/config/ssm-config-provider.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { jsonLinesLog } from '../../lambdas/adapters/observability/json-lines-log.ts';
import { parameterClientScopes } from '../../lambdas/app/pre-token-generation.lambda.ts';
import { DEFAULT_CONFIG, type MemoryHubConfig, SERVICE_CONFIGURATION } from '../../lambdas/app/service-tables.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { describeConfigProviderContract } from '../contract/config-provider.contract.ts';
import { describeParameterReaderContract } from '../contract/parameter-reader.contract.ts';
import { ParametersExtensionStandIn } from '../support/parameters-extension-stand-in.ts';

const PARAMETER = '/memory-hub/test/config';

/** The adapter as a function's environment makes it, pointed at the stand-in's port. */
const clientOf = (standIn: ParametersExtensionStandIn) =>
  parametersExtensionClient({
    AWS_SESSION_TOKEN: standIn.sessionToken,
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(standIn.port),
  });

/** What a read failed with. */
const failureOf = (read: Promise<unknown>) =>
  read.then(
    () => undefined,
    (error: unknown) => error as ParameterReadError,
  );

describeParameterReaderContract('ParametersExtensionClient on the extension stand-in', async () => {
  const standIn = await ParametersExtensionStandIn.start();
  return {
    reader: clientOf(standIn),
    publish: async (name, value) => standIn.publish(name, value),
    breakSource: async (broken) => standIn.fail(broken ? 500 : undefined),
    hang: async () => standIn.hang(),
    close: () => standIn.close(),
  };
});

describeConfigProviderContract('SsmConfigProvider through the extension stand-in', async () => {
  const standIn = await ParametersExtensionStandIn.start();
  return {
    source: PARAMETER,
    ttlMs: DEFAULT_SSM_TTL_MS,
    publish: async (text) => {
      standIn.fail(undefined);
      standIn.publish(PARAMETER, text);
    },
    breakSource: async () => standIn.fail(400),
    load: async (dependencies) => {
      const provider = SsmConfigProvider.create({
        parameterName: PARAMETER,
        client: clientOf(standIn),
        configuration: SERVICE_CONFIGURATION,
        ...dependencies,
      });
      await provider.refresh();
      return provider;
    },
    refreshed: async (provider) => {
      await provider.refresh();
      await (provider as SsmConfigProvider<MemoryHubConfig>).settled();
    },
    close: () => standIn.close(),
  };
});

describe('Class: ParametersExtensionClient', () => {
  let standIn: ParametersExtensionStandIn;

  beforeEach(async () => {
    standIn = await ParametersExtensionStandIn.start();
  });

  afterEach(async () => {
    await standIn.close();
  });

  describe('Method: readParameter', () => {
    it("asks the extension's GetParameter route for the name, URL-encoded, with the session token", async () => {
      // Prepare
      standIn.publish(PARAMETER, '{}');

      // Act
      await clientOf(standIn).readParameter(PARAMETER);

      // Assess
      expect(standIn.requests).toEqual([
        {
          method: 'GET',
          path: '/systemsmanager/parameters/get?name=%2Fmemory-hub%2Ftest%2Fconfig',
          name: PARAMETER,
          token: standIn.sessionToken,
        },
      ]);
    });

    it('makes no request without a session token', async () => {
      // Act
      const failure = await failureOf(
        new ParametersExtensionClient({ sessionToken: undefined, port: standIn.port }).readParameter(PARAMETER),
      );

      // Assess
      expect(failure).toMatchObject({ name: 'ParameterReadError', reason: 'no session token' });
      expect(standIn.requests).toEqual([]);
    });

    it('names the status of an answer other than 200, and not its body', async () => {
      // Prepare
      standIn.publish(PARAMETER, '{}');

      // Act
      const refused = await failureOf(
        new ParametersExtensionClient({ sessionToken: 'another-token', port: standIn.port }).readParameter(PARAMETER),
      );
      const missing = await failureOf(clientOf(standIn).readParameter('/memory-hub/test/other'));

      // Assess
      expect(refused).toMatchObject({ reason: 'extension answered 401' });
      expect(missing).toMatchObject({ reason: 'extension answered 400', parameterName: '/memory-hub/test/other' });
    });

    it('fails as unreachable when no extension listens (the layer missing, or not started)', async () => {
      // Prepare: a port nothing listens on
      const { port } = standIn;
      await standIn.close();

      // Act
      const failure = await failureOf(
        new ParametersExtensionClient({ sessionToken: 't', port }).readParameter(PARAMETER),
      );

      // Assess
      expect(failure).toMatchObject({ reason: 'extension unreachable (ECONNREFUSED)' });
      standIn = await ParametersExtensionStandIn.start();
    });

    it('fails, without quoting it, on an answer that is not a GetParameter output', async () => {
      // Prepare: something else answers 200 on the port
      const impostor = createServer((_, response) => response.end('{"Value":"looks like a secret"}'));
      await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
      const { port } = impostor.address() as AddressInfo;

      // Act
      const failure = await failureOf(
        new ParametersExtensionClient({ sessionToken: 't', port }).readParameter(PARAMETER),
      );
      await new Promise((resolve) => impostor.close(resolve));

      // Assess
      expect(failure).toMatchObject({ reason: 'no value in the answer' });
      expect(failure?.message).not.toContain('secret');
    });
  });

  describe('Function: parametersExtensionClient', () => {
    it('takes the port from PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, the extension’s default without it', async () => {
      // Prepare
      standIn.publish(PARAMETER, '{"a":1}');

      // Act
      const value = await clientOf(standIn).readParameter(PARAMETER);

      // Assess
      expect(value).toBe('{"a":1}');
      expect(PARAMETERS_EXTENSION_DEFAULT_PORT).toBe(2773);
      expect(() => parametersExtensionClient({ PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: 'two' })).toThrow(
        /must be a port number/,
      );
    });
  });
});

describe('Class: SsmConfigProvider, through the extension stand-in', () => {
  let standIn: ParametersExtensionStandIn;

  beforeEach(async () => {
    standIn = await ParametersExtensionStandIn.start();
  });

  afterEach(async () => {
    await standIn.close();
  });

  const started = (readTimeoutMs?: number) => {
    const metrics = new InMemoryMetrics();
    const warnings: string[] = [];
    const provider = SsmConfigProvider.create({
      parameterName: PARAMETER,
      client: clientOf(standIn),
      configuration: SERVICE_CONFIGURATION,
      clock: new ManualClock(),
      metrics,
      log: jsonLinesLog((line) => warnings.push(line)),
      ...(readTimeoutMs !== undefined && { readTimeoutMs }),
    });
    return { provider, metrics, warnings };
  };

  it('makes no request until the first refresh, which reads the overrides once', async () => {
    // Prepare
    standIn.publish(PARAMETER, '{"listing":{"defaultPageSize":10}}');
    const { provider } = started();
    const atCreate = standIn.requests.length;

    // Act
    await Promise.all([provider.refresh(), provider.refresh()]);

    // Assess
    expect(atCreate).toBe(0);
    expect(standIn.requests).toHaveLength(1);
    expect(provider.current().listing.defaultPageSize).toBe(10);
  });

  it('waits no longer than its read timeout for an extension that does not answer, then goes on with the defaults', async () => {
    // Prepare
    standIn.publish(PARAMETER, '{"listing":{"defaultPageSize":10}}');
    standIn.hold();
    const { provider, metrics, warnings } = started(50);
    const startedAt = performance.now();

    // Act
    await provider.refresh();

    // Assess
    expect(performance.now() - startedAt).toBeLessThan(1000);
    expect(provider.current()).toEqual(DEFAULT_CONFIG);
    expect(metrics.countOf('config.first_read_fallback')).toBe(1);
    expect(JSON.parse(warnings[0] as string)).toMatchObject({ source: PARAMETER, reason: 'timeout' });
  });

  it('goes on with the defaults, naming the status, when the extension refuses the first read', async () => {
    // Prepare
    standIn.fail(400);
    const { provider, metrics, warnings } = started();

    // Act
    await provider.refresh();

    // Assess
    expect(provider.current()).toEqual(DEFAULT_CONFIG);
    expect(metrics.countOf('config.first_read_fallback')).toBe(1);
    expect(JSON.parse(warnings[0] as string)).toMatchObject({ reason: 'extension answered 400' });
  });
});

describe('Function: parameterClientScopes (the Cognito trigger), through the extension stand-in', () => {
  const SCOPES_PARAMETER = '/memory-hub/test/api-client-scopes';
  let standIn: ParametersExtensionStandIn;

  beforeEach(async () => {
    standIn = await ParametersExtensionStandIn.start();
  });

  afterEach(async () => {
    await standIn.close();
  });

  it('reads the client scopes once, then answers them from memory, even while the extension fails', async () => {
    // Prepare
    standIn.publish(SCOPES_PARAMETER, JSON.stringify([{ client: 'agent-app', scopes: ['memory-hub/memory.read'] }]));
    const clientScopes = parameterClientScopes(clientOf(standIn), SCOPES_PARAMETER);

    // Act
    const first = await clientScopes();
    standIn.fail(500);
    const second = await clientScopes();

    // Assess
    expect(first.get('agent-app')).toEqual(['memory-hub/memory.read']);
    expect(second).toBe(first);
    expect(standIn.requests).toHaveLength(1);
  });

  it('fails while it has never read them', async () => {
    // Prepare
    standIn.fail(400);

    // Act & Assess
    await expect(parameterClientScopes(clientOf(standIn), SCOPES_PARAMETER)()).rejects.toMatchObject({
      reason: 'extension answered 400',
    });
  });
});
