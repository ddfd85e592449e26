/**
 * Runs the embedded DynamoDB-compatible engine on its own thread, so local mode uses the machine's second
 * core: the server's event loop runs the handlers, this one the engine (in memory, journaled to disk: see
 * engine-journal.ts).
 *
 * The engine listens on a loopback port (for tools and anything else that speaks HTTP) and also takes
 * requests over the worker's message channel: the server's SDK client hands each signed request here as it
 * would hand it to a socket, without HTTP framing and parsing on either side (see engine-channel.ts).
 */
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import type { EngineReply, EngineRequest } from './engine-channel.ts';
import { type EngineDispatch, EngineJournal, isChange, writeSnapshot } from './engine-journal.ts';

/** Where the engine keeps its journal; none: in memory only (tests). */
const { path } = workerData as { path?: string };
const ENGINE_OPTIONS = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
const JOURNAL_FILE = 'journal.jsonl';
/** Where a LevelDB store of an earlier version is kept once its content has moved into the journal. */
const LEGACY_LEVELDB_FOLDER = 'legacy-leveldb';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** The engine's request listener, taken off its HTTP server so every request can pass the journal first. */
const takeListener = (engine: Server): RequestListener => {
  const [listener] = engine.listeners('request') as RequestListener[];
  if (!listener) throw new Error('the embedded engine has no request listener');
  engine.removeAllListeners('request');
  return listener;
};

const server = dynalite(ENGINE_OPTIONS);
const engineListener = takeListener(server);
let journal: EngineJournal | undefined;

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
const decoder = new TextDecoder();

/** A change the engine has applied is journaled before its answer leaves: an answered write is on disk. */
const journalIfChange = (target: string | undefined, statusCode: number, body: () => string): void => {
  if (journal && statusCode === 200 && target?.includes('.') && isChange(target)) journal.record(target, body());
};

/** Hands one request to an engine listener in-process (replay, snapshots, the migration). */
const dispatchTo =
  (listener: RequestListener): EngineDispatch =>
  (target, body) =>
    new Promise((resolve) => {
      const request = new ChannelRequest('POST', '/', {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': target,
        // The engine wants a SigV4-shaped header; it checks no signature.
        authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        'x-amz-date': '20260101T000000Z',
      });
      const response = new ChannelResponse((reply) =>
        resolve({ statusCode: reply.statusCode, body: decoder.decode(reply.body) }),
      );
      listener(request as unknown as IncomingMessage, response as unknown as ServerResponse);
      request.emit('data', Buffer.from(body));
      request.emit('end');
    });

const serveOver = (port: MessagePort): void => {
  port.on('message', (message: EngineRequest) => {
    const request = new ChannelRequest(message.method, message.url, message.headers);
    const body =
      typeof message.body === 'string'
        ? Buffer.from(message.body)
        : Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength);
    const response = new ChannelResponse((reply) => {
      journalIfChange(message.headers['x-amz-target'], reply.statusCode, () => body.toString('utf8'));
      // The reply's bytes are moved to the server thread, not copied.
      port.postMessage({ ...reply, id: message.id }, [reply.body.buffer as ArrayBuffer]);
    });
    engineListener(request as unknown as IncomingMessage, response as unknown as ServerResponse);
    if (body.length > 0) request.emit('data', body);
    request.emit('end');
  });
};

/** Requests over the loopback port (other tools) pass the journal too. */
server.on('request', (request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.end = ((...args: unknown[]) => {
    const target = request.headers['x-amz-target'];
    journalIfChange(typeof target === 'string' ? target : undefined, response.statusCode, () =>
      Buffer.concat(chunks).toString('utf8'),
    );
    return end(...args);
  }) as ServerResponse['end'];
  engineListener(request, response);
});

/**
 * A data folder written by an earlier version holds a LevelDB store: its tables and items are copied into a
 * journal, and its files are moved aside (kept, not deleted).
 */
const moveLevelDbIntoJournal = async (folder: string, file: string): Promise<void> => {
  const legacy = dynalite({ ...ENGINE_OPTIONS, path: folder });
  await writeSnapshot(file, dispatchTo(takeListener(legacy)));
  // dynalite closes its store only with its HTTP server, so that one listens for a moment.
  await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', () => resolve()));
  await new Promise<void>((resolve, reject) => legacy.close((error?: Error) => (error ? reject(error) : resolve())));
  mkdirSync(join(folder, LEGACY_LEVELDB_FOLDER));
  for (const name of readdirSync(folder)) {
    if (name !== JOURNAL_FILE && name !== LEGACY_LEVELDB_FOLDER)
      renameSync(join(folder, name), join(folder, LEGACY_LEVELDB_FOLDER, name));
  }
};

const start = async (): Promise<void> => {
  if (path) {
    mkdirSync(path, { recursive: true });
    const file = join(path, JOURNAL_FILE);
    if (!existsSync(file) && existsSync(join(path, 'CURRENT'))) await moveLevelDbIntoJournal(path, file);
    journal = await EngineJournal.open(file, dispatchTo(engineListener));
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
};

start().then(
  () => parentPort?.postMessage({ type: 'listening', port: (server.address() as AddressInfo).port }),
  (error: Error) => parentPort?.postMessage({ type: 'error', message: error.message }),
);

parentPort?.on('message', (message: { type: string; port?: MessagePort }) => {
  if (message.type === 'channel' && message.port) serveOver(message.port);
  if (message.type === 'close')
    server.close(() => {
      journal?.close();
      parentPort?.postMessage({ type: 'closed' });
    });
});
