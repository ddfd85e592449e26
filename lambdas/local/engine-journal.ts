/**
 * How the embedded engine keeps its data on disk: the engine (dynalite) holds the tables in memory, and every
 * request that changed them is appended to a journal before it is answered; a start replays the journal.
 *
 * Why not dynalite's own LevelDB store: every LevelDB read and write is a round trip through libuv's thread
 * pool, about five per DynamoDB request, and under load each waits for a core. Measured at 120 requests/s of
 * the learned-memory mix: engine round trip p50 5.5 ms on LevelDB against 2.9 ms in memory, and 11.1 against
 * 9.2 ms of CPU per request. The journal costs one buffered write per change. Its durability is LevelDB's
 * default one (written to the operating system, not synced): a crash of the process loses nothing answered,
 * a crash of the machine may lose the last writes.
 *
 * Replaying is faithful because a change is recorded when the engine answers it, once applied, and the
 * worker admits changes so that this order is the order they were applied in (see ChangeGate): single-item
 * writes to one item are answered in the order dynalite applied them, and anything spanning items or
 * tables runs alone. A change the engine refused (a failed condition, a validation error) is not recorded.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';

/** The engine's answer to one request. */
export interface EngineAnswer {
  readonly statusCode: number;
  readonly body: string;
}

/** Sends one DynamoDB request (`target` like "DynamoDB_20120810.PutItem") to the engine in-process. */
export type EngineDispatch = (target: string, body: string) => Promise<EngineAnswer>;

const HEADER = JSON.stringify({ journal: 'memory-hub-embedded-dynamodb', version: 1 });
const HEADER_LINE = Buffer.from(`${HEADER}\n`);
const API = 'DynamoDB_20120810';
/** dynalite takes both API versions (2011 and 2012) and runs the same operation for either. */
const TARGET = /^DynamoDB_\d{8}\./;

/** Operations that only read. */
const READ_ONLY = new Set([
  'BatchGetItem',
  'DescribeTable',
  'DescribeTimeToLive',
  'GetItem',
  'ListTables',
  'ListTagsOfResource',
  'Query',
  'Scan',
]);
/** Changes confined to one item: dynalite locks the item and answers before the next write of it starts. */
const SINGLE_ITEM = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
/** Operations after which a table passes through a transitional status (CREATING, UPDATING, DELETING). */
const TABLE_LIFECYCLE = new Set(['CreateTable', 'UpdateTable', 'DeleteTable']);

/**
 * How a request changes the engine: `read` not at all (and is never recorded), `item` one item, `exclusive`
 * several items or a table (BatchWriteItem, the table operations, tags, anything unknown). Only a POST with a
 * body is an operation; dynalite answers a GET or an OPTIONS itself, whatever its target header says.
 */
export const changeKindOf = (
  method: string,
  target: string | undefined,
  bodyBytes: number,
): 'read' | 'item' | 'exclusive' => {
  if (method !== 'POST' || !target || !TARGET.test(target) || bodyBytes === 0) return 'read';
  const operation = operationOf(target);
  if (READ_ONLY.has(operation)) return 'read';
  return SINGLE_ITEM.has(operation) ? 'item' : 'exclusive';
};

export const isTableLifecycle = (target: string): boolean => TABLE_LIFECYCLE.has(operationOf(target));

const operationOf = (target: string): string => target.slice(target.indexOf('.') + 1);

/** Rewritten at start once it holds this many more entries than the tables hold items. */
const COMPACTION_SLACK_ENTRIES = 10_000;
/** Rewritten while running once it has grown past this many bytes and four times its last rewritten size. */
const COMPACTION_MIN_BYTES = 256 * 1024 * 1024;
const READ_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export interface JournalOptions {
  compactionSlackEntries?: number;
  compactionMinBytes?: number;
}

export class EngineJournal {
  readonly #file: string;
  readonly #dispatch: EngineDispatch;
  readonly #compactionMinBytes: number;
  #fd: number | undefined;
  #bytes = 0;
  #bytesAfterCompaction = 0;

  private constructor(file: string, dispatch: EngineDispatch, compactionMinBytes: number) {
    this.#file = file;
    this.#dispatch = dispatch;
    this.#compactionMinBytes = compactionMinBytes;
  }

  /**
   * Replays the journal at `file` (if any) into the engine, rewrites it when it has grown well past what the
   * tables hold, and opens it for appending. A last entry cut short by a crash is cut off; any other entry
   * that does not read or does not replay stops the start, and the file is left as it was.
   */
  static async open(file: string, dispatch: EngineDispatch, options: JournalOptions = {}): Promise<EngineJournal> {
    const journal = new EngineJournal(file, dispatch, options.compactionMinBytes ?? COMPACTION_MIN_BYTES);
    const slack = options.compactionSlackEntries ?? COMPACTION_SLACK_ENTRIES;
    const replayed = existsSync(file) ? await journal.#replay() : undefined;
    if (replayed === undefined || (replayed > slack && replayed > (await countItems(dispatch)) + slack)) {
      await writeSnapshot(file, dispatch);
    }
    journal.#openForAppending();
    return journal;
  }

  /**
   * Records a change the engine has just applied, before it is answered. Throws when the bytes could not all
   * be written: the caller answers with an error and takes no further change (the change is in memory only).
   */
  record(target: string, body: string): void {
    const fd = this.#fd;
    if (fd === undefined) throw new Error('The engine journal is closed');
    const bytes = Buffer.from(entryLine(target, body), 'utf8');
    try {
      writeWhole(fd, bytes);
    } catch (error) {
      // The file must end on a whole entry: a part written before the failure would glue onto the next.
      try {
        ftruncateSync(fd, this.#bytes);
      } catch {
        // Nothing more to do: the engine refuses every change from now on, and a start cuts a torn tail.
      }
      throw error;
    }
    this.#bytes += bytes.length;
  }

  /** Whether the journal has grown enough to be rewritten from the engine's state. */
  get wantsCompaction(): boolean {
    return this.#bytes > Math.max(this.#compactionMinBytes, 4 * this.#bytesAfterCompaction);
  }

  /** Rewrites the journal from the engine's state. Only while no change is in flight (the ChangeGate held). */
  async compact(): Promise<void> {
    if (this.#fd === undefined) return;
    this.close();
    try {
      await writeSnapshot(this.#file, this.#dispatch);
    } finally {
      this.#openForAppending();
    }
  }

  close(): void {
    if (this.#fd === undefined) return;
    fsyncSync(this.#fd);
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #openForAppending(): void {
    this.#fd = openSync(this.#file, 'a');
    this.#bytes = fstatSync(this.#fd).size;
    this.#bytesAfterCompaction = this.#bytes;
  }

  /** Replays every complete entry, in chunks (a journal may be larger than a string can be). */
  async #replay(): Promise<number> {
    const fd = openSync(this.#file, 'r+');
    try {
      const buffer = Buffer.alloc(READ_CHUNK_BYTES);
      let pending = Buffer.alloc(0);
      let offset = 0;
      let line = 0;
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        if (read === 0) break;
        offset += read;
        pending =
          pending.length > 0
            ? Buffer.concat([pending, buffer.subarray(0, read)])
            : Buffer.from(buffer.subarray(0, read));
        // Not a journal at all (a file with no newline would otherwise be read whole before the check).
        if (line === 0 && !HEADER_LINE.subarray(0, pending.length).equals(pending.subarray(0, HEADER_LINE.length)))
          throw new JournalError(this.#file, 1, 'it does not start with the journal header');
        let start = 0;
        for (let end = pending.indexOf(NEWLINE); end !== -1; end = pending.indexOf(NEWLINE, start)) {
          line += 1;
          await this.#replayLine(pending.toString('utf8', start, end), line);
          start = end + 1;
        }
        pending = pending.subarray(start);
      }
      if (line === 0) throw new JournalError(this.#file, 1, 'it does not start with the journal header');
      if (pending.length > 0) {
        // An entry whose write was cut short: it was never answered. Cut off, so the next entry starts clean.
        ftruncateSync(fd, offset - pending.length);
        fsyncSync(fd);
      }
      return line - 1;
    } finally {
      closeSync(fd);
    }
  }

  async #replayLine(text: string, line: number): Promise<void> {
    if (line === 1) {
      if (text !== HEADER) throw new JournalError(this.#file, 1, 'it does not start with the journal header');
      return;
    }
    let entry: { t?: unknown; b?: unknown };
    try {
      entry = JSON.parse(text);
    } catch {
      throw new JournalError(this.#file, line, 'the entry is not JSON');
    }
    if (typeof entry.t !== 'string' || typeof entry.b !== 'object' || entry.b === null)
      throw new JournalError(this.#file, line, 'the entry has no operation or no request');
    const answer = await this.#dispatch(entry.t, JSON.stringify(entry.b));
    if (answer.statusCode !== 200)
      throw new JournalError(this.#file, line, `the engine refused it on replay (${answer.body.slice(0, 200)})`);
    if (isTableLifecycle(entry.t)) await settleTables(this.#dispatch);
  }
}

export class JournalError extends Error {
  constructor(file: string, line: number, reason: string) {
    super(`The embedded DynamoDB journal ${file} cannot be replayed: line ${line}: ${reason}`);
    this.name = 'JournalError';
  }
}

/**
 * Writes, next to `file` and then over it, a journal that recreates what the engine holds now: each table
 * as created (and tagged), then each item as put. The journal it replaces is kept as `file.previous` until
 * the next rewrite. Also how a LevelDB store of an earlier version moves to a journal.
 */
export const writeSnapshot = async (
  file: string,
  dispatch: EngineDispatch,
  { fromLegacyStore = false }: { fromLegacyStore?: boolean } = {},
): Promise<void> => {
  // A LevelDB store of an earlier version may hold a table saved mid-operation, whose timer died with that
  // process: it is copied as it stands, not waited for (a table being created has no items yet; one being
  // deleted is left out).
  if (!fromLegacyStore) await settleTables(dispatch);
  const temporary = `${file}.tmp`;
  const fd = openSync(temporary, 'w');
  const write = (text: string) => writeWhole(fd, Buffer.from(text, 'utf8'));
  try {
    write(`${HEADER}\n`);
    for (const tableName of await listTables(dispatch)) {
      const { Table: table } = (await call(dispatch, 'DescribeTable', { TableName: tableName })) as {
        Table: TableDescription;
      };
      if (table.TableStatus === 'DELETING') continue;
      write(entryLine(`${API}.CreateTable`, JSON.stringify(createTableInputOf(table))));
      const { Tags: tags = [] } = (await call(dispatch, 'ListTagsOfResource', { ResourceArn: table.TableArn })) as {
        Tags?: unknown[];
      };
      if (tags.length > 0)
        write(entryLine(`${API}.TagResource`, JSON.stringify({ ResourceArn: table.TableArn, Tags: tags })));
      // The engine serves no items of a table still being created.
      if (table.TableStatus === 'CREATING') continue;
      for await (const page of scanPages(dispatch, { TableName: tableName, Limit: 500 }))
        for (const item of page.Items ?? [])
          write(entryLine(`${API}.PutItem`, JSON.stringify({ TableName: tableName, Item: item })));
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (existsSync(file)) keepPrevious(file);
  // The journal is replaced in one step, so a crash leaves the old one or the new one, never neither.
  renameSync(temporary, file);
};

/** Keeps the journal about to be replaced as `file.previous` if the file system allows: a courtesy, never a blocker. */
const keepPrevious = (file: string): void => {
  const previous = `${file}.previous`;
  try {
    rmSync(previous, { force: true });
    linkSync(file, previous);
  } catch {
    try {
      copyFileSync(file, previous);
    } catch {
      // No copy kept; the rewrite goes ahead.
    }
  }
};

/** Writes all of `bytes`: a single write may take only part of them. */
const writeWhole = (fd: number, bytes: Buffer): void => {
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
};

/** One journal line. A body that arrived pretty-printed is compacted: a line holds exactly one entry. */
const entryLine = (target: string, body: string): string =>
  `{"t":${JSON.stringify(target)},"b":${body.includes('\n') ? JSON.stringify(JSON.parse(body)) : body}}\n`;

const call = async (dispatch: EngineDispatch, operation: string, input: unknown): Promise<unknown> => {
  const answer = await dispatch(`${API}.${operation}`, JSON.stringify(input));
  if (answer.statusCode !== 200) throw new Error(`The embedded engine refused ${operation}: ${answer.body}`);
  return JSON.parse(answer.body);
};

const listTables = async (dispatch: EngineDispatch): Promise<string[]> => {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = (await call(dispatch, 'ListTables', start ? { ExclusiveStartTableName: start } : {})) as {
      TableNames?: string[];
      LastEvaluatedTableName?: string;
    };
    names.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
};

/** Every page of a Scan with this input. */
async function* scanPages(
  dispatch: EngineDispatch,
  input: Record<string, unknown>,
): AsyncGenerator<{ Items?: unknown[]; Count?: number }> {
  let startKey: unknown;
  do {
    const page = (await call(dispatch, 'Scan', {
      ...input,
      ...(startKey !== undefined && { ExclusiveStartKey: startKey }),
    })) as { Items?: unknown[]; Count?: number; LastEvaluatedKey?: unknown };
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}

/** Items across every table (the engine's DescribeTable does not keep ItemCount). */
const countItems = async (dispatch: EngineDispatch): Promise<number> => {
  let total = 0;
  for (const tableName of await listTables(dispatch)) {
    for await (const page of scanPages(dispatch, { TableName: tableName, Select: 'COUNT' })) total += page.Count ?? 0;
  }
  return total;
};

const SETTLE_DEADLINE_MS = 10_000;

/** Waits until no table or index is CREATING, UPDATING or DELETING (the engine finishes these on a timer). */
export const settleTables = async (dispatch: EngineDispatch): Promise<void> => {
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  for (const tableName of await listTables(dispatch)) {
    for (;;) {
      const answer = await dispatch(`${API}.DescribeTable`, JSON.stringify({ TableName: tableName }));
      if (answer.statusCode !== 200) break;
      const { Table } = JSON.parse(answer.body) as { Table: TableDescription };
      const indexesActive = (Table.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
      if (Table.TableStatus === 'ACTIVE' && indexesActive) break;
      if (Date.now() > deadline) throw new Error(`The embedded engine's table ${tableName} did not become ACTIVE`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
};

interface Throughput {
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

interface IndexDescription {
  IndexName: string;
  KeySchema: unknown;
  Projection: unknown;
  ProvisionedThroughput?: Throughput;
  IndexStatus?: string;
}

interface TableDescription {
  TableName: string;
  TableArn: string;
  TableStatus?: string;
  AttributeDefinitions: unknown;
  KeySchema: unknown;
  BillingModeSummary?: { BillingMode?: string };
  ProvisionedThroughput?: Throughput;
  GlobalSecondaryIndexes?: IndexDescription[];
  LocalSecondaryIndexes?: IndexDescription[];
}

/**
 * The CreateTable request that makes a table with this description (which carries read-only extras). An
 * index created without throughput is described with zero units, which CreateTable refuses: it gets one.
 */
export const createTableInputOf = (table: TableDescription): Record<string, unknown> => {
  const onDemand = table.BillingModeSummary?.BillingMode === 'PAY_PER_REQUEST';
  const throughput = (given: Throughput | undefined) =>
    onDemand
      ? {}
      : {
          ProvisionedThroughput: {
            ReadCapacityUnits: given?.ReadCapacityUnits || 1,
            WriteCapacityUnits: given?.WriteCapacityUnits || 1,
          },
        };
  const indexes = (list: IndexDescription[] | undefined, global: boolean) =>
    list?.map((index) => ({
      IndexName: index.IndexName,
      KeySchema: index.KeySchema,
      Projection: index.Projection,
      ...(global && throughput(index.ProvisionedThroughput)),
    }));
  return {
    TableName: table.TableName,
    AttributeDefinitions: table.AttributeDefinitions,
    KeySchema: table.KeySchema,
    ...(onDemand ? { BillingMode: 'PAY_PER_REQUEST' } : throughput(table.ProvisionedThroughput)),
    ...(table.GlobalSecondaryIndexes && { GlobalSecondaryIndexes: indexes(table.GlobalSecondaryIndexes, true) }),
    ...(table.LocalSecondaryIndexes && { LocalSecondaryIndexes: indexes(table.LocalSecondaryIndexes, false) }),
  };
};
