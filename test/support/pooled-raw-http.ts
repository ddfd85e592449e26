import { Agent, type IncomingHttpHeaders, request } from 'node:http';

/*
 * Requests over pooled keep-alive connections with the request target sent as written (fetch would resolve dot
 * segments and re-encode), repeated headers and any body bytes: fast enough to fuzz with thousands of them.
 * Node's client still refuses a target with characters outside U+0021-U+00FF; `raw-http.ts` writes any bytes
 * over a socket of its own, one connection per request.
 */

export interface PooledRequest {
  readonly method: string;
  /** The request target as it goes on the request line: origin-form, absolute-form, `*`, or garbage. */
  readonly target: string;
  /** Sent in this order; a name given twice is sent as two header lines. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Buffer;
}

export interface PooledResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** One connection pool per base URL: fuzzing sends thousands of requests. */
const agents = new Map<string, Agent>();

const agentFor = (base: URL): Agent => {
  let agent = agents.get(base.host);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
    agents.set(base.host, agent);
  }
  return agent;
};

export const sendPooled = (baseUrl: string, raw: PooledRequest, timeoutMs = 15_000): Promise<PooledResponse> => {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const grouped = new Map<string, string[]>();
    for (const [name, value] of raw.headers) grouped.set(name, [...(grouped.get(name) ?? []), value]);
    const outgoing = request({
      host: base.hostname,
      port: base.port,
      method: raw.method,
      path: raw.target,
      agent: agentFor(base),
      timeout: timeoutMs,
      // Our own Content-Length below; Node must not add a chunked encoding or a second one.
      headers: Object.fromEntries(
        [...grouped].map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]),
      ),
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no response within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    if (raw.body !== undefined) outgoing.setHeader('content-length', raw.body.length);
    outgoing.end(raw.body);
  });
};

/** Closes the pooled connections (call once the server is about to stop). */
export const closePooledConnections = (): void => {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
};
