import { sign } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StaticConfigProvider } from '../../lambdas/adapters/config/static-config-provider.ts';
import { parseConfig } from '../../lambdas/app/service-tables.ts';
import type { AnyCapabilityModule } from '../../lambdas/composition/capability-module.ts';
import type { ConfigProvider } from '../../lambdas/kernel/config/config-provider.port.ts';
import { ALL_MEMORY_HUB_SCOPES } from '../../lambdas/kernel/identity/oauth-scopes.ts';
import type { Clock } from '../../lambdas/kernel/time/clock.ts';
import {
  DEFAULT_LOCAL_CLIENT,
  ensureLocalIssuer,
  LOCAL_ISSUER,
  mintLocalToken,
  type TokenRequest,
} from '../../lambdas/local/local-issuer.ts';
import { type RunningLocalServer, startLocalServer } from '../../lambdas/local/local-server.ts';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * The defaults, but for the per-client throttle's bound: a test sends one client's requests far faster than an
 * agent would, often on a clock that stands still (one quota window for the whole file). Leases keep their
 * default size, so every API test still leases; the throttle's own tests pass a configuration of their own.
 */
const TEST_CONFIG = parseConfig({ throttle: { requestsPerSecond: 100_000 } }, 'test/support/local-api.ts');

/** A real local server (real HTTP, real JWT verification, embedded engine in memory) in a throwaway data folder. */
export class LocalApi {
  readonly dataDir: string;
  readonly server: RunningLocalServer;

  private constructor(dataDir: string, server: RunningLocalServer) {
    this.dataDir = dataDir;
    this.server = server;
  }

  static async start(
    options: {
      config?: ConfigProvider;
      clock?: Clock;
      persist?: boolean;
      dataDir?: string;
      /** The whole service unless a test composes its own capabilities. */
      modules?: readonly AnyCapabilityModule[];
      /** The cost meter reads engine traffic (tests of the cost report). */
      meterEngineWork?: boolean;
    } = {},
  ): Promise<LocalApi> {
    const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'memory-hub-test-')));
    const server = await startLocalServer({
      dataDir,
      config: options.config ?? new StaticConfigProvider(TEST_CONFIG),
      inMemoryStorage: !options.persist,
      ...(options.modules && { modules: options.modules }),
      ...(options.meterEngineWork && { meterEngineWork: true }),
      // Workflow retries do not wait in tests; their intervals are checked where the runner is tested.
      sleep: async () => undefined,
      ...(options.clock && { clock: options.clock }),
    });
    return new LocalApi(dataDir, server);
  }

  token(request: Partial<TokenRequest> = {}): Promise<string> {
    return mintLocalToken(this.dataDir, { tenant: 'acme', sub: 'alice', ...request });
  }

  /** A token signed with this issuer's key over arbitrary claims: for tokens the issuer would never mint. */
  async signedToken(claims: Record<string, unknown>): Promise<string> {
    const issuer = await ensureLocalIssuer(this.dataDir);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const input = `${encode({ alg: 'RS256', kid: issuer.keyId, typ: 'JWT' })}.${encode({
      iss: LOCAL_ISSUER,
      token_use: 'access',
      client_id: DEFAULT_LOCAL_CLIENT,
      scope: ALL_MEMORY_HUB_SCOPES.join(' '),
      iat: now,
      exp: now + 600,
      ...claims,
    })}`;
    return `${input}.${sign('RSA-SHA256', Buffer.from(input), issuer.privateKey).toString('base64url')}`;
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.server.url}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as T };
  }

  /**
   * Holds the search index consumer back, as a lost delivery would: the events it would index are dropped until
   * the returned release is called.
   */
  holdSearchIndexBack(): () => void {
    const consumer = this.server.backend.system.consumers['search-index'];
    if (!consumer) throw new Error('no search index consumer');
    const consume = consumer.consume.bind(consumer);
    (consumer as { consume: typeof consume }).consume = async () => 'ignored';
    return () => {
      (consumer as { consume: typeof consume }).consume = consume;
    };
  }

  async stop(options: { keepData?: boolean } = {}): Promise<void> {
    await this.server.close();
    if (!options.keepData) await rm(this.dataDir, { recursive: true, force: true });
  }
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export const eventually = async <T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** Looks up a token the test minted under a name; a name never minted is a mistake in the test, said at once. */
export const tokenLookup =
  (tokens: Readonly<Record<string, string>>) =>
  (name: string): string => {
    const found = tokens[name];
    if (found === undefined) throw new Error(`no token named ${name}`);
    return found;
  };
