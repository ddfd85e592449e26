import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultProvider } from '../../../lambdas/adapters/lambda-credential-provider.ts';

const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CREDENTIAL_EXPIRATION',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'AWS_PROFILE',
];

describe('Module: lambda-credential-provider', () => {
  const saved = { ...process.env };
  let endpoint: Server | undefined;

  beforeEach(() => {
    for (const name of CREDENTIAL_VARIABLES) delete process.env[name];
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    process.env = { ...saved };
    await new Promise<void>((resolve) => (endpoint ? endpoint.close(() => resolve()) : resolve()));
    endpoint = undefined;
  });

  /** A container credentials endpoint that hands out credentials expiring in `expiresInMs`, counting its calls. */
  const startEndpoint = async (expiresInMs: number) => {
    const served = { calls: 0 };
    endpoint = createServer((_, response) => {
      served.calls += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          AccessKeyId: `ASIACONTAINER${served.calls}`,
          SecretAccessKey: 'container-secret',
          Token: 'container-token',
          Expiration: new Date(Date.now() + expiresInMs).toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => endpoint?.listen(0, '127.0.0.1', resolve));
    const { port } = endpoint.address() as AddressInfo;
    process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `http://127.0.0.1:${port}/credentials`;
    return served;
  };

  describe('Method: defaultProvider', () => {
    it("signs with the role's credentials Lambda puts in the environment", async () => {
      // Prepare
      Object.assign(process.env, {
        AWS_ACCESS_KEY_ID: 'ASIAENVIRONMENT',
        AWS_SECRET_ACCESS_KEY: 'environment-secret',
        AWS_SESSION_TOKEN: 'environment-token',
      });

      // Act
      const credentials = await defaultProvider()();

      // Assess
      expect(credentials).toMatchObject({
        accessKeyId: 'ASIAENVIRONMENT',
        secretAccessKey: 'environment-secret',
        sessionToken: 'environment-token',
      });
    });

    it('fetches them from the container endpoint when the environment has none, again once they near expiry', async () => {
      // Prepare: credentials for six minutes, then two minutes pass (inside the five-minute refresh margin)
      const served = await startEndpoint(6 * 60_000);
      const provider = defaultProvider();
      const first = await provider();
      const later = Date.now() + 2 * 60_000;
      vi.spyOn(Date, 'now').mockReturnValue(later);

      // Act
      const second = await provider();

      // Assess
      expect(first.accessKeyId).toBe('ASIACONTAINER1');
      expect(second.accessKeyId).toBe('ASIACONTAINER2');
      expect(served.calls).toBe(2);
    });

    it('keeps credentials that are far from expiry', async () => {
      // Prepare
      const served = await startEndpoint(3_600_000);
      const provider = defaultProvider();

      // Act
      await provider();
      const again = await provider();

      // Assess
      expect(again.accessKeyId).toBe('ASIACONTAINER1');
      expect(served.calls).toBe(1);
    });

    it('refuses when neither the environment nor a container endpoint has credentials', async () => {
      // Act / Assess
      await expect(defaultProvider()()).rejects.toThrow(/credential/i);
    });
  });
});
