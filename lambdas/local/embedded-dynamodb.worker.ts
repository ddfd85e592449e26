/**
 * Runs the embedded DynamoDB-compatible engine on its own thread, so local mode uses the machine's second
 * core: the server's event loop runs the handlers, this one the engine (its request parsing and LevelDB).
 *
 * The engine listens on a loopback port (for tools and anything else that speaks HTTP) and also takes
 * requests over the worker's message channel: the server's SDK client hands each signed request here as it
 * would hand it to a socket, without HTTP framing and parsing on either side (see engine-channel.ts).
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import type { EngineReply, EngineRequest } from './engine-channel.ts';

const { path } = workerData as { path?: string };
const server = dynalite({ ...(path && { path }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

server.once('error', (error: Error) => parentPort?.postMessage({ type: 'error', message: error.message }));
server.listen(0, '127.0.0.1', () => {
  parentPort?.postMessage({ type: 'listening', port: (server.address() as AddressInfo).port });
});

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;
const [engineListener] = server.listeners('request') as RequestListener[];

/** The parts of an incoming request the engine reads: method, url, headers and the body as events. */
class ChannelRequest extends EventEmitter {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  constructor(method: string, url: string, headers: Record<string, string>) {
    super();
    this.method = method;
    this.url = url;
    this.headers = headers;
  }
}

/** The parts of a response the engine writes: status, headers and one body. */
class ChannelResponse {
  statusCode = 200;
  contentType: string | undefined;
  readonly #headers: Record<string, string> = {};
  readonly #reply: (message: Omit<EngineReply, 'id'>) => void;
  constructor(reply: (message: Omit<EngineReply, 'id'>) => void) {
    this.#reply = reply;
  }
  setHeader(name: string, value: string | number): void {
    this.#headers[name.toLowerCase()] = String(value);
  }
  end(body?: string): void {
    this.#reply({ statusCode: this.statusCode, headers: this.#headers, body: encoder.encode(body ?? '') });
  }
}

const encoder = new TextEncoder();

const serveOver = (port: MessagePort): void => {
  port.on('message', (message: EngineRequest) => {
    const request = new ChannelRequest(message.method, message.url, message.headers);
    // The reply's bytes are moved to the server thread, not copied.
    const response = new ChannelResponse((reply) =>
      port.postMessage({ ...reply, id: message.id }, [reply.body.buffer as ArrayBuffer]),
    );
    engineListener?.(request as unknown as IncomingMessage, response as unknown as ServerResponse);
    if (message.body.length > 0)
      request.emit(
        'data',
        typeof message.body === 'string'
          ? Buffer.from(message.body)
          : Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength),
      );
    request.emit('end');
  });
};

parentPort?.on('message', (message: { type: string; port?: MessagePort }) => {
  if (message.type === 'channel' && message.port) serveOver(message.port);
  if (message.type === 'close') server.close(() => parentPort?.postMessage({ type: 'closed' }));
});
