/**
 * The index writes DynamoDB bills for a table write, computed from the table's secondary indexes and the item's
 * attributes (the embedded engine maintains its indexes but leaves their writes out of the consumed capacity it
 * reports). The rules are DynamoDB's own:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes
 *
 * - an item that comes to carry every key attribute of an index is put into it: one write per KB of the entry;
 * - an item leaving an index (a key attribute removed, the item deleted or replaced without it) is deleted from it:
 *   one write per KB of the entry it had;
 * - an index key that changes value is a delete and a put; a projected attribute that changes is one write;
 * - an index entry weighs the table's key attributes, the index's key attributes, the projected attributes and
 *   100 bytes of overhead.
 */

/** An item or key as DynamoDB's JSON protocol carries it (`{ name: { S: "…" } }`). */
export type AttributeMap = Record<string, AttributeValue>;
export interface AttributeValue {
  S?: string;
  N?: string;
  B?: string;
  BOOL?: boolean;
  NULL?: boolean;
  SS?: string[];
  NS?: string[];
  BS?: string[];
  L?: AttributeValue[];
  M?: AttributeMap;
}

export interface IndexDefinition {
  readonly name: string;
  /** The table's own key attributes (part of every index entry). */
  readonly tableKeys: readonly string[];
  readonly keys: readonly string[];
  /** `undefined` when every attribute is projected (`ALL`). */
  readonly projected: readonly string[] | undefined;
}

/** A table's secondary indexes (global and local), from its CreateTable input or description. */
export const indexesOf = (table: {
  readonly KeySchema?: unknown;
  readonly GlobalSecondaryIndexes?: unknown;
  readonly LocalSecondaryIndexes?: unknown;
}): IndexDefinition[] => {
  const keyNames = (schema: unknown): string[] =>
    Array.isArray(schema) ? schema.map((key: { AttributeName?: unknown }) => String(key.AttributeName)) : [];
  const tableKeys = keyNames(table.KeySchema);
  const declared = [
    ...(Array.isArray(table.GlobalSecondaryIndexes) ? table.GlobalSecondaryIndexes : []),
    ...(Array.isArray(table.LocalSecondaryIndexes) ? table.LocalSecondaryIndexes : []),
  ] as {
    IndexName?: unknown;
    KeySchema?: unknown;
    Projection?: { ProjectionType?: unknown; NonKeyAttributes?: unknown };
  }[];
  return declared.map((index) => {
    const type = index.Projection?.ProjectionType;
    const included = Array.isArray(index.Projection?.NonKeyAttributes)
      ? (index.Projection.NonKeyAttributes as unknown[]).map(String)
      : [];
    return {
      name: String(index.IndexName),
      tableKeys,
      keys: keyNames(index.KeySchema),
      projected: type === 'ALL' ? undefined : type === 'INCLUDE' ? included : [],
    };
  });
};

/** An item's entry in an index: its size, and its index key values (a change of key is a delete and a put). */
export interface IndexEntry {
  readonly bytes: number;
  readonly keys: string;
}

const KB = 1024;
const INDEX_ENTRY_OVERHEAD_BYTES = 100;

/** The write units one write to `tableName` costs in its indexes, and the index entries it leaves behind. */
export const indexWrites = (write: {
  readonly operation: string;
  readonly tableName: string;
  readonly indexes: readonly IndexDefinition[];
  readonly input: Record<string, unknown>;
  readonly output: Record<string, unknown>;
  /** Entries in the indexes now, by table, index and item key; updated here. */
  readonly indexed: Map<string, IndexEntry>;
}): number => {
  const { operation, tableName, indexes, input, output, indexed } = write;
  let units = 0;
  for (const index of indexes) {
    const tableKey = operation === 'PutItem' ? (input.Item as AttributeMap | undefined) : (input.Key as AttributeMap);
    if (!tableKey) continue;
    const entryKey = `${tableName}\u0000${index.name}\u0000${index.tableKeys.map((name) => JSON.stringify(tableKey[name])).join('\u0000')}`;
    const entry = indexed.get(entryKey);
    const before = entry?.bytes;
    if (operation === 'PutItem') {
      const item = input.Item as AttributeMap;
      const after = entryOf(index, item);
      if (after === undefined) {
        if (before !== undefined) units += writeUnits(before);
        indexed.delete(entryKey);
        continue;
      }
      if (before !== undefined && entry?.keys !== keyValuesOf(index, item)) units += writeUnits(before);
      units += writeUnits(after);
      indexed.set(entryKey, { bytes: after, keys: keyValuesOf(index, item) });
    } else if (operation === 'DeleteItem') {
      const old = output.Attributes as AttributeMap | undefined;
      const size = old ? entryOf(index, old) : before;
      if (size !== undefined) units += writeUnits(size);
      indexed.delete(entryKey);
    } else if (operation === 'UpdateItem') {
      const { set, removed } = attributesTouched(String(input.UpdateExpression ?? ''), input.ExpressionAttributeNames);
      const projected = (name: string) => index.projected === undefined || index.projected.includes(name);
      if (before !== undefined) {
        if (index.keys.some((name) => removed.has(name))) {
          units += writeUnits(before);
          indexed.delete(entryKey);
        } else if (index.keys.some((name) => set.has(name))) {
          // The key moves: the old entry goes, a new one (of about the same size) comes.
          units += writeUnits(before) * 2;
        } else if ([...set, ...removed].some(projected)) units += writeUnits(before);
      } else if (index.keys.every((name) => set.has(name))) {
        const values = expressionValues(input.ExpressionAttributeValues);
        const bytes = INDEX_ENTRY_OVERHEAD_BYTES + values;
        units += writeUnits(bytes);
        indexed.set(entryKey, { bytes, keys: '' });
      }
    }
  }
  return units;
};

const writeUnits = (entryBytes: number): number => Math.max(1, Math.ceil(entryBytes / KB));

/** The size of `item`'s entry in `index`, or undefined when the item lacks one of the index's key attributes. */
const entryOf = (index: IndexDefinition, item: AttributeMap): number | undefined => {
  if (!index.keys.every((name) => item[name] !== undefined)) return undefined;
  const names = new Set([...index.tableKeys, ...index.keys, ...(index.projected ?? Object.keys(item))]);
  let bytes = INDEX_ENTRY_OVERHEAD_BYTES;
  for (const name of names) {
    const value = item[name];
    if (value !== undefined) bytes += Buffer.byteLength(name) + attributeValueBytes(value);
  }
  return bytes;
};

const keyValuesOf = (index: IndexDefinition, item: AttributeMap): string =>
  JSON.stringify(index.keys.map((name) => item[name]));

/** The attribute names an update expression sets (SET, ADD) and removes (REMOVE, DELETE), `#names` resolved. */
export const attributesTouched = (expression: string, names: unknown): { set: Set<string>; removed: Set<string> } => {
  const aliases = (names ?? {}) as Record<string, string>;
  const set = new Set<string>();
  const removed = new Set<string>();
  const clauses = expression.split(/\b(SET|REMOVE|ADD|DELETE)\b/i);
  for (let index = 1; index < clauses.length; index += 2) {
    const action = String(clauses[index]).toUpperCase();
    for (const part of splitTopLevel(clauses[index + 1] ?? '')) {
      const path = part.trim().split(/\s|=/)[0] ?? '';
      const first = path.split(/[.[]/)[0] ?? '';
      const name = aliases[first] ?? first;
      if (!name) continue;
      (action === 'SET' || action === 'ADD' ? set : removed).add(name);
    }
  }
  return { set, removed };
};

const splitTopLevel = (clause: string): string[] => {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < clause.length; at++) {
    const char = clause[at];
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(clause.slice(start, at));
      start = at + 1;
    }
  }
  parts.push(clause.slice(start));
  return parts.filter((part) => part.trim().length > 0);
};

const expressionValues = (values: unknown): number =>
  Object.values((values ?? {}) as AttributeMap).reduce((sum, value) => sum + attributeValueBytes(value), 0);

/** DynamoDB's size of an attribute value: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html */
export const attributeValueBytes = (value: AttributeValue): number => {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return decodeBinary(value.B).length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, each) => sum + Buffer.byteLength(each), 0);
  if (value.NS) return value.NS.reduce((sum, each) => sum + numberBytes(each), 0);
  if (value.BS) return value.BS.reduce((sum, each) => sum + decodeBinary(each).length, 0);
  if (value.L) return 3 + value.L.reduce((sum, each) => sum + 1 + attributeValueBytes(each), 0);
  if (value.M)
    return (
      3 +
      Object.entries(value.M).reduce(
        (sum, [name, each]) => sum + 1 + Buffer.byteLength(name) + attributeValueBytes(each),
        0,
      )
    );
  return 0;
};

/** Up to 38 significant digits, about one byte per two, plus one. */
const numberBytes = (text: string): number => {
  const digits = text
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
};

/** A binary attribute as the JSON protocol carries it (base64). */
export const decodeBinary = (base64: string): Buffer => Buffer.from(base64, 'base64');
