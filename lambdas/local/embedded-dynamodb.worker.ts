/**
 * Runs the embedded DynamoDB-compatible engine on its own thread, so local mode uses the machine's second
 * core: the server's event loop runs the handlers, this one the engine (in memory, journaled to disk: see
 * engine-journal.ts).
 *
 * The engine listens on a loopback port (for tools and anything else that speaks HTTP) and also takes
 * requests over the worker's message channel: the server's SDK client hands each signed request here as it
 * would hand it to a socket, without HTTP framing and parsing on either side (see engine-channel.ts). Both
 * ways pass the same admission (ChangeGate) and the same journal.
 */
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import { ChangeGate } from './engine-change-gate.ts';
import type { EngineReply, EngineRequest } from './engine-channel.ts';
import {
  changeKindOf,
  type EngineDispatch,
  EngineJournal,
  isTableLifecycle,
  settleTables,
  writeSnapshot,
} from './engine-journal.ts';
import { closeLevelIteratorsOnReturn } from './level-iterator-return.ts';

/** Where the engine keeps its journal; none: in memory only (tests). */
const { path } = workerData as { path?: string };
const ENGINE_OPTIONS = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
const JOURNAL_FILE = 'journal.jsonl';
/** Where a LevelDB store of an earlier version is kept once its content has moved into the journal. */
const LEGACY_LEVELDB_FOLDER = 'legacy-leveldb';
/** dynalite's own request size limit (it answers 413 past it). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** The engine's request listener, taken off its HTTP server so every request passes admission first. */
const takeListener = (engine: Server): RequestListener => {
  const [listener] = engine.listeners('request') as RequestListener[];
  if (!listener) throw new Error('the embedded engine has no request listener');
  engine.removeAllListeners('request');
  return listener;
};

closeLevelIteratorsOnReturn();
const server = dynalite(ENGINE_OPTIONS);
const engineListener = takeListener(server);
const gate = new ChangeGate();
let journal: EngineJournal | undefined;
/**
 * Set once a change could not be journaled, or the engine is closing. From then on every request is refused,
 * reads included, so the change the disk lacks is not read afterwards.
 */
let refusal: string | undefined;
let compacting = false;

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

/** An answer the SDK reads as DynamoDB's own InternalServerError (retryable; nothing is claimed done). */
const refusalBody = (reason: string) =>
  JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: reason });

/** One request, whichever way it came: the engine runs it and answers through `answer`. */
interface Exchange {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /**
   * Hands the request to the engine. `beforeAnswer` runs with the engine's status just before the answer
   * leaves; if it throws, a 500 is sent instead of the engine's answer.
   */
  run(beforeAnswer: (statusCode: number) => void): void;
  refuse(reason: string): void;
}

/** Admits a request, lets the engine run it, and journals it if it changed something. */
const serve = async (exchange: Exchange): Promise<void> => {
  if (refusal) return exchange.refuse(refusal);
  const target = exchange.headers['x-amz-target'];
  const kind = changeKindOf(exchange.method, target, exchange.body.length);
  const log = journal;
  if (kind === 'read' || !log || !target) return exchange.run(() => {});
  const exclusive = kind === 'exclusive';
  await gate.enter(exclusive);
  try {
    if (refusal) return exchange.refuse(refusal);
    await new Promise<void>((answered) =>
      exchange.run((statusCode) => {
        answered();
        if (statusCode !== 200) return;
        // Admitted before a failed write: this change must not land after the torn one either.
        if (refusal) throw new Error(refusal);
        try {
          log.record(target, exchange.body.toString('utf8'));
        } catch (error) {
          refusal = `The embedded engine could not write its journal (${(error as Error).message}); restart the server`;
          throw error;
        }
      }),
    );
    // As on replay: the next change finds the table settled, whatever timer the engine finishes it on.
    if (isTableLifecycle(target)) await settleTables(dispatchTo(engineListener));
  } finally {
    gate.leave(exclusive);
  }
  if (log.wantsCompaction && !compacting) {
    compacting = true;
    gate
      .exclusively(async () => {
        if (!refusal) await log.compact();
      })
      .catch((error: Error) => {
        refusal = `The embedded engine could not rewrite its journal (${error.message}); restart the server`;
      })
      .finally(() => {
        compacting = false;
      });
  }
};

/** Hands one request to an engine listener in-process, past admission (replay, snapshots, the migration). */
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

/** Runs `request` through the engine with `response`, emitting the body the exchange already holds. */
const runEngine = (request: ChannelRequest, response: unknown, body: Buffer): void => {
  engineListener(request as unknown as IncomingMessage, response as ServerResponse);
  if (body.length > 0) request.emit('data', body);
  request.emit('end');
};

const serveOver = (port: MessagePort): void => {
  port.on('message', (message: EngineRequest) => {
    const body =
      typeof message.body === 'string'
        ? Buffer.from(message.body)
        : Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength);
    // The reply's bytes are moved to the server thread, not copied.
    const send = (reply: Omit<EngineReply, 'id'>) =>
      port.postMessage({ ...reply, id: message.id }, [reply.body.buffer as ArrayBuffer]);
    const refuse = (reason: string) =>
      send({
        statusCode: 500,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: encoder.encode(refusalBody(reason)),
      });
    serve({
      method: message.method,
      headers: message.headers,
      body,
      run: (beforeAnswer) =>
        runEngine(
          new ChannelRequest(message.method, message.url, message.headers),
          new ChannelResponse((reply) => {
            try {
              beforeAnswer(reply.statusCode);
            } catch {
              return refuse(refusal ?? 'The embedded engine could not record the change');
            }
            send(reply);
          }),
          body,
        ),
      refuse,
    }).catch((error: Error) => refuse(`The embedded engine failed: ${error.message}`));
  });
};

/** Requests over the loopback port (other tools): the body is read whole, then the request is served. */
server.on('request', (request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
  });
  request.on('end', () => {
    if (size > MAX_REQUEST_BYTES) {
      // What dynalite answers past its limit, without holding the whole body first.
      response.writeHead(413, { 'Transfer-Encoding': 'chunked' });
      response.end();
      return;
    }
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const method = request.method ?? 'GET';
    const refuse = (reason: string) => {
      const body = refusalBody(reason);
      response.writeHead(500, {
        'Content-Type': 'application/x-amz-json-1.0',
        'Content-Length': Buffer.byteLength(body),
      });
      response.end(body);
    };
    serve({
      method,
      headers,
      body,
      run: (beforeAnswer) => {
        const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
        response.end = ((...args: unknown[]) => {
          try {
            beforeAnswer(response.statusCode);
          } catch {
            response.end = end as ServerResponse['end'];
            for (const name of response.getHeaderNames()) response.removeHeader(name);
            return refuse(refusal ?? 'The embedded engine could not record the change');
          }
          return end(...args);
        }) as ServerResponse['end'];
        runEngine(new ChannelRequest(method, request.url ?? '/', headers), response, body);
      },
      refuse,
    }).catch((error: Error) => {
      if (!response.headersSent) refuse(`The embedded engine failed: ${error.message}`);
    });
  });
});

/** The earlier version's LevelDB store in `folder`, copied into a journal at `file`. */
const copyLevelDbIntoJournal = async (folder: string, file: string): Promise<void> => {
  const legacy = dynalite({ ...ENGINE_OPTIONS, path: folder });
  try {
    await writeSnapshot(file, dispatchTo(takeListener(legacy)), { fromLegacyStore: true });
  } finally {
    // dynalite closes its store only with its HTTP server, so that one listens for a moment.
    await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', () => resolve()));
    await new Promise<void>((resolve) => legacy.close(() => resolve()));
  }
};

/**
 * Once the copied journal has replayed, the LevelDB files are moved aside: kept, not deleted, each store in
 * a folder of its own (never mixed with one moved earlier).
 */
const moveLevelDbAside = (folder: string): void => {
  let aside = join(folder, LEGACY_LEVELDB_FOLDER);
  for (let attempt = 2; existsSync(aside); attempt++) aside = join(folder, `${LEGACY_LEVELDB_FOLDER}-${attempt}`);
  mkdirSync(aside);
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(JOURNAL_FILE) && !name.startsWith(LEGACY_LEVELDB_FOLDER))
      renameSync(join(folder, name), join(aside, name));
  }
};

const start = async (): Promise<void> => {
  if (path) {
    mkdirSync(path, { recursive: true });
    const file = join(path, JOURNAL_FILE);
    const fromLevelDb = !existsSync(file) && existsSync(join(path, 'CURRENT'));
    if (fromLevelDb) await copyLevelDbIntoJournal(path, file);
    try {
      journal = await EngineJournal.open(file, dispatchTo(engineListener));
    } catch (error) {
      // A copy that does not replay is dropped: the LevelDB store stays where it was, for the next attempt.
      if (fromLevelDb) rmSync(file, { force: true });
      throw error;
    }
    // Also LevelDB files left next to a journal by a start that stopped between the copy and the move.
    if (existsSync(join(path, 'CURRENT'))) moveLevelDbAside(path);
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
  if (message.type === 'close') {
    // Changes already admitted are answered and journaled; anything later is refused.
    void gate
      .exclusively(async () => {
        refusal ??= 'The embedded engine is closing';
        journal?.close();
      })
      .catch(() => undefined)
      .finally(() => server.close(() => parentPort?.postMessage({ type: 'closed' })));
  }
});
