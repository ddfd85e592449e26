/**
 * A minimal HTTP/1.1 client over keep-alive connections (node:http), cheap enough that the load generator
 * does not become the bottleneck on a 2-core machine.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import type { Outcome } from './open-loop-driver.ts';

export interface HttpResponse {
  /** 0 when no response came back (connection error, timeout). */
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Set when status is 0. */
  error?: string;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export class HttpClient {
  readonly #base: URL;
  readonly #agent: Agent;
  readonly #timeoutMs: number;

  constructor(baseUrl: string, options: { maxSockets?: number; timeoutMs?: number } = {}) {
    this.#base = new URL(baseUrl);
    this.#agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256, scheduling: 'fifo' });
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  send(call: HttpRequest): Promise<HttpResponse> {
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve) => {
      const outgoing = request(
        {
          agent: this.#agent,
          host: this.#base.hostname,
          port: this.#base.port,
          method: call.method,
          path: call.path,
          headers,
          timeout: this.#timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', (error) => resolve({ status: 0, headers: {}, body: '', error: error.message }));
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
      outgoing.on('error', (error) => resolve({ status: 0, headers: {}, body: '', error: error.message }));
      outgoing.end(payload);
    });
  }

  /** Closes every connection; requests still in flight end with status 0. */
  close(): void {
    this.#agent.destroy();
  }
}

/** What the open-loop driver records of a response to `operation`. */
export const outcomeOf = (operation: string, response: HttpResponse): Outcome => ({
  operation,
  status: response.status,
  ...(response.error !== undefined && { error: response.error }),
});
