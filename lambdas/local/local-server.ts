import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Context } from 'aws-lambda';
import { createMemoryTableInput } from '../adapters/dynamodb/memory-table.ts';
import { CAPABILITIES } from '../app/capabilities.ts';
import type { AnyCapabilityModule } from '../composition/capability-module.ts';
import { type LocalApplication, localApplication } from '../composition/local-application.ts';
import { operationsOf, workflowsOf } from '../composition/module-tables.ts';
import type { ApiEvent, ApiResult } from '../http/api-event.ts';
import { type ErrorStatuses, errorResponse } from '../http/error-responses.ts';
import type { ApiHandler } from '../http/http-operation.ts';
import { routeKeyOf } from '../http/operation.ts';
import {
  HeaderFieldsTooLargeError,
  MalformedRequestError,
  MalformedRequestTargetError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  RequestTimeoutError,
  RouteNotFoundError,
} from '../http/request.errors.ts';
import type { ConfigProvider } from '../kernel/config/config-provider.port.ts';
import { UnauthenticatedError } from '../kernel/identity/identity.errors.ts';
import type { Clock } from '../kernel/time/clock.ts';
import { createUlidGenerator } from '../kernel/time/ids.ts';
import type { Sleep } from '../kernel/workflows/workflow-runner.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { startEmbeddedDynamoDb } from './embedded-dynamodb.ts';
import { createLocalTokenVerifier } from './local-issuer.ts';
import { LocalRelayLoop } from './local-relay-loop.ts';
import { LocalScheduler } from './local-scheduler.ts';
import { RequestCostMeter } from './request-cost-meter.ts';
import { parseRequestTarget, type RequestTarget } from './request-target.ts';
import { RouteTable } from './route-table.ts';

/** Bodies past this are refused before they are read to the end; the handlers apply the configured limit. */
const HARD_BODY_LIMIT_BYTES = 1_048_576;
export const LOCAL_TABLE_NAME = 'memory-hub-local';

export interface LocalServerOptions {
  dataDir: string;
  /** Already loaded; `FileConfigProvider` in `npm start`, so an edited config file takes effect. */
  config: ConfigProvider;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The capability modules served: the whole service (`CAPABILITIES`) unless a test composes its own. */
  modules?: readonly AnyCapabilityModule[];
  /** Keep the embedded engine in memory instead of under `dataDir` (tests). */
  inMemoryStorage?: boolean;
  /**
   * Have the cost meter read every engine request and answer (`EngineWork`: index writes, key caches, which
   * operation caused each relayed event). It costs a JSON parse of each, so it is off unless a cost run asks.
   */
  meterEngineWork?: boolean;
  clock?: Clock;
  /** How the workflow runner waits between retries (tests pass one that does not wait). */
  sleep?: Sleep;
  log?: (line: string) => void;
}

export interface RunningLocalServer {
  readonly url: string;
  readonly port: number;
  readonly backend: LocalApplication;
  readonly relay: LocalRelayLoop;
  readonly costs: RequestCostMeter;
  close(): Promise<void>;
}

/**
 * Local mode: the Lambda handlers behind a plain HTTP server that plays API Gateway's part — it matches
 * the route, verifies the bearer token against the local issuer's JWKS as the JWT authorizer would, and
 * hands the handler the same payload-2.0 event with the verified claims.
 */
export const startLocalServer = async (options: LocalServerOptions): Promise<RunningLocalServer> => {
  const releaseLock = await lockDataDir(options.dataDir);
  const cleanups: (() => Promise<void>)[] = [releaseLock];
  let closing: Promise<void> | undefined;
  // Last registered, first cleaned; closing twice waits for the first close.
  const cleanUp = () => {
    closing ??= (async () => {
      for (const cleanup of [...cleanups].reverse()) await cleanup().catch(() => undefined);
    })();
    return closing;
  };
  try {
    const engine = await startEmbeddedDynamoDb(options.inMemoryStorage ? undefined : join(options.dataDir, 'dynamodb'));
    cleanups.push(() => engine.close());
    const costs = new RequestCostMeter({
      tables: [createMemoryTableInput(LOCAL_TABLE_NAME)],
      engineWork: options.meterEngineWork ?? false,
    });
    const modules = options.modules ?? CAPABILITIES;
    const backend = await localApplication({
      modules,
      // Seen by the cost meter on the way: index writes, each function's own key caches, round trips.
      dynamoDb: costs.observe(engine),
      tableName: LOCAL_TABLE_NAME,
      keyFile: join(options.dataDir, 'keys', 'content-key.bin'),
      config: options.config,
      metrics: costs,
      ...(options.clock && { clock: options.clock }),
      ...(options.sleep && { sleep: options.sleep }),
    });
    cleanups.push(() => backend.local.close());
    const relayLoop = new LocalRelayLoop({
      relay: backend.system.relay,
      // The relay and its consumers are Lambdas of their own in AWS: their costs are booked to the operation whose
      // commit they relay, apart from its request's, and their storage requests give way to the requests'.
      measure: (run, entry) => costs.measureEvent(entry?.event, () => engine.requestHandler.inBackground(run)),
    });
    backend.local.onCommitted((entry) => relayLoop.offer(entry));
    cleanups.push(() => relayLoop.stop());
    cleanups.push(() => backend.local.workflowRunner.idle());
    const scheduler = new LocalScheduler({
      workflows: workflowsOf(modules),
      starter: backend.local.workflowRunner,
      ids: createUlidGenerator(),
    });
    cleanups.push(async () => scheduler.stop());
    const verifyToken = await createLocalTokenVerifier(options.dataDir);
    const gateway = new LocalGateway({
      handlers: backend.handlers,
      routes: new RouteTable(operationsOf(modules)),
      statuses: backend.http.statuses,
      verifyToken,
      costs,
      log: options.log ?? (() => undefined),
    });
    const inFlight = new Set<Promise<void>>();
    const server = createServer((request, response) => {
      const serving = gateway
        .serve(request, response)
        .catch(() => {
          // Only a failure to write the answer gets here; the socket is all that is left to close.
          if (!response.headersSent) response.destroy();
        })
        .finally(() => inFlight.delete(serving));
      inFlight.add(serving);
    });
    // A request the HTTP parser cannot read never reaches `serve`: it is answered in the error shape too.
    server.on('clientError', (error, socket) => gateway.refuseUnreadable(error, socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    // On shutdown: stop accepting, let the requests already being served finish (their writes may be
    // committing), then drop idle keep-alive connections.
    cleanups.push(async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.race([Promise.all([...inFlight]), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      server.closeAllConnections();
      await closed;
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://${options.host ?? '127.0.0.1'}:${port}`,
      port,
      backend,
      costs,
      relay: relayLoop,
      close: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
};

interface LocalGatewayOptions {
  handlers: Readonly<Record<string, ApiHandler>>;
  routes: RouteTable;
  statuses: ErrorStatuses;
  verifyToken: (token: string) => Promise<Record<string, unknown>>;
  costs: RequestCostMeter;
  log: (line: string) => void;
}

class LocalGateway {
  readonly #routes: RouteTable;
  readonly #options: LocalGatewayOptions;

  constructor(options: LocalGatewayOptions) {
    this.#options = options;
    this.#routes = options.routes;
  }

  async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = randomUUID();
    const method = request.method ?? 'GET';
    let answered: { result: ApiResult; operationId: string };
    try {
      answered = await this.#answer(request, method, requestId);
    } catch {
      // The handlers answer their own errors; this is the gateway failing, answered like any internal error.
      request.resume();
      answered = { result: this.#refusal(new Error('local gateway failure'), requestId), operationId: 'unmatched' };
    }
    const { result, operationId } = answered;
    response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
    response.end(result.body);
    this.#options.log(`${result.statusCode} ${method} ${operationId} ${(performance.now() - started).toFixed(1)}ms`);
  }

  /** Answers a connection whose request could not be parsed, in the error shape, and closes it. */
  refuseUnreadable(error: Error & { code?: string }, socket: Duplex): void {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new HeaderFieldsTooLargeError()
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new RequestTimeoutError()
          : new MalformedRequestError();
    const result = this.#refusal(refusal, randomUUID());
    const status = result.statusCode ?? 400;
    // An answer to HEAD carries no body (RFC 9110 §9.3.2), even when the rest of its request was unreadable.
    const rawPacket = (error as { rawPacket?: Buffer }).rawPacket;
    const body = rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ' ? '' : (result.body ?? '');
    const headers = Object.entries({
      ...result.headers,
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${headers}\r\n${body}`);
  }

  async #answer(
    request: IncomingMessage,
    method: string,
    requestId: string,
  ): Promise<{ result: ApiResult; operationId: string }> {
    const target = parseRequestTarget(request.url ?? '');
    if (target === undefined) {
      request.resume();
      return { result: this.#refusal(new MalformedRequestTargetError(), requestId), operationId: 'unmatched' };
    }
    const matched = this.#routes.match(method, target.path);
    if (matched === undefined || matched === 'pathOnly') {
      request.resume();
      if (matched === undefined)
        return { result: this.#refusal(new RouteNotFoundError(), requestId), operationId: 'unmatched' };
      // RFC 9110 §15.5.6: a 405 lists the methods the path does accept.
      const refusal = this.#refusal(new MethodNotAllowedError(), requestId);
      const allow = this.#routes.methodsAt(target.path).join(', ');
      return { result: { ...refusal, headers: { ...refusal.headers, Allow: allow } }, operationId: 'unmatched' };
    }
    const operationId = matched.route.operationId;
    const body = await readBody(request);
    const handler = this.#options.handlers[matched.operation.lambda.handler];
    if (body === undefined)
      return { result: this.#refusal(new PayloadTooLargeError(HARD_BODY_LIMIT_BYTES), requestId), operationId };
    if (!handler) return { result: this.#refusal(new RouteNotFoundError(), requestId), operationId };
    const claims = matched.operation.authenticated ? await this.#authenticate(request) : undefined;
    if (matched.operation.authenticated && !claims)
      return { result: this.#refusal(new UnauthenticatedError(), requestId), operationId };
    const event = toApiEvent({
      request,
      target,
      body,
      requestId,
      routeKey: routeKeyOf(matched.route),
      pathParameters: matched.pathParameters,
      claims,
    });
    const result = await this.#options.costs.measure(operationId, () => handler(event, lambdaContext(requestId)));
    return { result, operationId };
  }

  #refusal(error: unknown, requestId: string): ApiResult {
    return errorResponse(error, requestId, this.#options.statuses);
  }

  /** Verified claims, or undefined for a missing, malformed, expired, foreign or wrongly signed token. */
  async #authenticate(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
    const header = request.headers.authorization;
    const token = header?.match(/^Bearer ([A-Za-z0-9_.-]+)$/)?.[1];
    if (!token) return undefined;
    try {
      return await this.#options.verifyToken(token);
    } catch {
      return undefined;
    }
  }
}

/** The request body as text, or undefined when it exceeds the hard limit. */
const readBody = (request: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= HARD_BODY_LIMIT_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > HARD_BODY_LIMIT_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

/** API Gateway hands claims over as strings; array claims become "[a b c]". */
const asAuthorizerClaims = (claims: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(claims).map(([name, value]) => [
      name,
      Array.isArray(value) ? `[${value.join(' ')}]` : String(value),
    ]),
  );

const toApiEvent = (parts: {
  request: IncomingMessage;
  target: RequestTarget;
  body: string;
  requestId: string;
  routeKey: string;
  pathParameters: Record<string, string>;
  claims: Record<string, unknown> | undefined;
}): ApiEvent => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parts.request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  // A repeated name is joined with commas, as payload 2.0 does; a Map keeps `__proto__` or `constructor` plain names.
  const joined = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(parts.target.rawQuery)) {
    const earlier = joined.get(name);
    joined.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  const query = Object.fromEntries(joined);
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: parts.routeKey,
    // Decoded, as HTTP API hands it over (see request-target.ts).
    rawPath: parts.target.path,
    rawQueryString: parts.target.rawQuery,
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    ...(Object.keys(parts.pathParameters).length > 0 && { pathParameters: parts.pathParameters }),
    ...(parts.body.length > 0 && { body: parts.body }),
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      requestId: parts.requestId,
      routeKey: parts.routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
      http: {
        method: parts.request.method ?? 'GET',
        path: parts.target.path,
        protocol: `HTTP/${parts.request.httpVersion}`,
        sourceIp: parts.request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      ...(parts.claims && {
        authorizer: {
          jwt: {
            claims: asAuthorizerClaims(parts.claims),
            scopes: typeof parts.claims.scope === 'string' ? parts.claims.scope.split(' ') : null,
          },
        },
      }),
    },
  };
};

const lambdaContext = (requestId: string): Context => ({
  awsRequestId: requestId,
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'memory-hub-local',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:memory-hub-local',
  memoryLimitInMB: '512',
  logGroupName: 'local',
  logStreamName: 'local',
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});
