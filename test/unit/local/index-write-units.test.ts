import { describe, expect, it } from 'vitest';
import {
  type AttributeMap,
  attributesTouched,
  attributeValueBytes,
  type IndexEntry,
  indexesOf,
  indexWrites,
} from '../../../lambdas/local/index-write-units.ts';

const TABLE = 'memory';
/** A table with a sparse index over marked items, projecting one attribute (the memory table once had this one). */
const indexes = indexesOf({
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: 'outbox',
      KeySchema: [
        { AttributeName: 'outboxShard', KeyType: 'HASH' },
        { AttributeName: 'outboxAt', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['outboxEvent'] },
    },
  ],
});

/** A marked item: keys, a payload, and the marker with its event. */
const revision = (eventBytes: number): AttributeMap => ({
  pk: { S: 't#acme#p#alice#note' },
  sk: { S: 'R#01JD0000000000000000000000#0000000001' },
  payload: { B: Buffer.alloc(600).toString('base64') },
  outboxShard: { S: 'outbox#2' },
  outboxAt: { S: '2026-12-01T10:00:00.000Z#01JD0000000000000000000001' },
  outboxEvent: { S: 'e'.repeat(eventBytes) },
});
const keyOf = (item: AttributeMap) => ({
  pk: item.pk as NonNullable<AttributeMap[string]>,
  sk: item.sk as NonNullable<AttributeMap[string]>,
});

const write = (
  indexed: Map<string, IndexEntry>,
  operation: string,
  input: Record<string, unknown>,
  output: Record<string, unknown> = {},
) => indexWrites({ operation, tableName: TABLE, indexes, input, output, indexed });

describe('Module: index-write-units', () => {
  describe('Method: indexesOf', () => {
    it("reads a table's index, its keys and its projected attribute", () => {
      // Assess
      expect(indexes).toEqual([
        { name: 'outbox', tableKeys: ['pk', 'sk'], keys: ['outboxShard', 'outboxAt'], projected: ['outboxEvent'] },
      ]);
    });
  });

  describe('Method: indexWrites', () => {
    it('bills a revision carrying the outbox marker one index write per KB of its entry', () => {
      // Prepare
      const indexed = new Map<string, IndexEntry>();

      // Act
      const small = write(indexed, 'PutItem', { Item: revision(400) });
      const large = write(new Map(), 'PutItem', { Item: revision(1500) });

      // Assess: the payload is not projected; keys, the event and 100 bytes are
      expect(small).toBe(1);
      expect(large).toBe(2);
    });

    it('bills nothing for an item outside every index (a head item, an audit entry)', () => {
      // Prepare
      const { outboxShard: _shard, outboxAt: _at, outboxEvent: _event, ...head } = revision(400);

      // Act
      const units = write(new Map(), 'PutItem', { Item: { ...head, sk: { S: 'H#01JD0000000000000000000000' } } });

      // Assess
      expect(units).toBe(0);
    });

    it('bills clearing the marker as one index delete, and clearing it again as nothing', () => {
      // Prepare
      const indexed = new Map<string, IndexEntry>();
      const item = revision(400);
      write(indexed, 'PutItem', { Item: item });
      const clear = {
        Key: keyOf(item),
        UpdateExpression: 'REMOVE outboxShard, outboxAt, outboxEvent',
        ConditionExpression: 'attribute_exists(pk)',
      };

      // Act
      const first = write(indexed, 'UpdateItem', clear);
      const again = write(indexed, 'UpdateItem', clear);

      // Assess
      expect(first).toBe(1);
      expect(again).toBe(0);
    });

    it('bills a delete from the item it returned, and an item replaced without the marker as a delete', () => {
      // Prepare
      const indexed = new Map<string, IndexEntry>();
      const item = revision(400);
      write(indexed, 'PutItem', { Item: item });
      const { outboxShard: _shard, outboxAt: _at, outboxEvent: _event, ...published } = item;

      // Act
      const replaced = write(indexed, 'PutItem', { Item: published });
      const deleted = write(new Map(), 'DeleteItem', { Key: keyOf(item) }, { Attributes: item });

      // Assess
      expect(replaced).toBe(1);
      expect(deleted).toBe(1);
    });

    it('bills a marker whose index key changes as a delete and a put', () => {
      // Prepare
      const indexed = new Map<string, IndexEntry>();
      write(indexed, 'PutItem', { Item: revision(400) });

      // Act
      const units = write(indexed, 'PutItem', { Item: { ...revision(400), outboxShard: { S: 'outbox#3' } } });

      // Assess
      expect(units).toBe(2);
    });
  });

  describe('Method: attributesTouched', () => {
    it('names what an update expression sets and removes, aliases resolved', () => {
      // Act
      const touched = attributesTouched('SET #s = :s, #n.#m = list_append(a, :b) REMOVE outboxAt, tags[0]', {
        '#s': 'status',
        '#n': 'nested',
        '#m': 'member',
      });

      // Assess
      expect([...touched.set].sort()).toEqual(['nested', 'status']);
      expect([...touched.removed].sort()).toEqual(['outboxAt', 'tags']);
    });
  });

  describe('Method: attributeValueBytes', () => {
    it('sizes values as DynamoDB does: UTF-8 strings, binary bytes, numbers by digits, maps with their names', () => {
      // Assess
      expect(attributeValueBytes({ S: 'héllo' })).toBe(6);
      expect(attributeValueBytes({ B: Buffer.alloc(10).toString('base64') })).toBe(10);
      expect(attributeValueBytes({ N: '1733070000' })).toBe(6);
      expect(attributeValueBytes({ M: { a: { S: 'xy' } } })).toBe(3 + 1 + 1 + 2);
    });
  });
});
