import { AsyncLocalStorage } from 'node:async_hooks';
import type { MessagePort } from 'node:worker_threads';
import type { HttpHandlerOptions, HttpRequest, HttpResponse, RequestHandler } from '@smithy/types';

/** A signed request as the SDK built it; the body is the serialised JSON, as bytes or text. */
export interface EngineRequest {
  id: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

export interface EngineReply {
  id: number;
  statusCode: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Background storage requests in flight at once: enough for the relay to keep up, too few to crowd requests. */
export const BACKGROUND_IN_FLIGHT = 4;

/**
 * The SDK client's transport to the embedded engine on its worker thread: each request the client has built
 * and signed goes over a message channel instead of a loopback socket. Everything above the transport —
 * serialisation, signing, retries, error parsing — is the SDK's own, as against DynamoDB.
 *
 * In AWS the outbox relay and the event consumers are Lambdas of their own, with DynamoDB capacity of their
 * own; here they share one engine thread with the requests. Work started under `inBackground` is therefore
 * let through a few requests at a time (`BACKGROUND_IN_FLIGHT`), so a burst of relay writes never queues
 * ahead of a request's reads.
 */
export class EngineChannelHandler implements RequestHandler<HttpRequest, HttpResponse, HttpHandlerOptions> {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  readonly #port: MessagePort;
  readonly #pending = new Map<number, { resolve: (reply: EngineReply) => void; reject: (error: Error) => void }>();
  readonly #background = new AsyncLocalStorage<true>();
  readonly #waitingBackground: (() => void)[] = [];
  #backgroundInFlight = 0;
  #nextId = 1;
  #closed: Error | undefined;

  constructor(port: MessagePort) {
    this.#port = port;
    port.on('message', (reply: EngineReply) => {
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      pending?.resolve(reply);
    });
    port.on('close', () => this.close(new Error('The embedded DynamoDB engine has stopped')));
    port.unref();
  }

  /** Runs `work` with its storage requests marked as background: they reach the engine a few at a time. */
  inBackground<T>(work: () => Promise<T>): Promise<T> {
    return this.#background.run(true, work);
  }

  async handle(request: HttpRequest): Promise<{ response: HttpResponse }> {
    if (this.#background.getStore() !== true) return this.#send(request);
    if (this.#backgroundInFlight >= BACKGROUND_IN_FLIGHT)
      await new Promise<void>((resolve) => this.#waitingBackground.push(resolve));
    else this.#backgroundInFlight += 1;
    try {
      return await this.#send(request);
    } finally {
      // Handed straight to the next waiting background request, if any, so the turn is never lost.
      const next = this.#waitingBackground.shift();
      if (next) next();
      else this.#backgroundInFlight -= 1;
    }
  }

  async #send(request: HttpRequest): Promise<{ response: HttpResponse }> {
    if (this.#closed) throw this.#closed;
    const id = this.#nextId++;
    const query = new URLSearchParams(
      Object.entries(request.query ?? {}).flatMap(([name, value]): [string, string][] =>
        Array.isArray(value) ? value.map((each) => [name, each]) : value === null ? [] : [[name, value]],
      ),
    ).toString();
    // The JSON codec's body is a Uint8Array subclass; a plain view of its bytes is what crosses the channel.
    const body: Uint8Array | string =
      request.body instanceof Uint8Array
        ? new Uint8Array(request.body.buffer, request.body.byteOffset, request.body.byteLength)
        : typeof request.body === 'string'
          ? request.body
          : '';
    const reply = await new Promise<EngineReply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#port.ref();
      this.#port.postMessage({
        id,
        method: request.method,
        url: `${request.path}${query ? `?${query}` : ''}`,
        headers: request.headers,
        body,
      } satisfies EngineRequest);
    }).finally(() => {
      if (this.#pending.size === 0) this.#port.unref();
    });
    return { response: { statusCode: reply.statusCode, headers: reply.headers, body: reply.body } };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  close(reason = new Error('The engine channel is closed')): void {
    this.#closed ??= reason;
    for (const pending of this.#pending.values()) pending.reject(reason);
    this.#pending.clear();
  }

  destroy(): void {}
}
