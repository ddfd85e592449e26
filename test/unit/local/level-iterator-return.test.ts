import type { AddressInfo } from 'node:net';
import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { AbstractLevel } from 'abstract-level';
import dynalite from 'dynalite';
import { MemoryLevel } from 'memory-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoDbClient } from '../../../lambdas/adapters/dynamodb/dynamodb-client.ts';
import { ensureMemoryTable } from '../../../lambdas/adapters/dynamodb/memory-table.ts';
import { closeLevelIteratorsOnReturn } from '../../../lambdas/local/level-iterator-return.ts';

/** Iterators (and other resources) the engine's databases hold open, counted as they attach and detach. */
const openResources = () => {
  const open = new Set<unknown>();
  const prototype = AbstractLevel.prototype as unknown as {
    attachResource(resource: unknown): void;
    detachResource(resource: unknown): void;
  };
  const { attachResource, detachResource } = prototype;
  prototype.attachResource = function (this: unknown, resource: unknown) {
    open.add(resource);
    attachResource.call(this, resource);
  };
  prototype.detachResource = function (this: unknown, resource: unknown) {
    open.delete(resource);
    detachResource.call(this, resource);
  };
  return {
    get size() {
      return open.size;
    },
    restore: () => {
      prototype.attachResource = attachResource;
      prototype.detachResource = detachResource;
    },
  };
};

describe('closeLevelIteratorsOnReturn', () => {
  it('gives abstract-level iterators the `return` that closes them', async () => {
    // Prepare
    closeLevelIteratorsOnReturn();
    const db = new MemoryLevel();
    await db.put('a', '1');
    const values = db.values() as unknown as { return(): Promise<unknown>; next(): Promise<unknown> };

    // Act
    const returned = await values.return();

    // Assess
    expect(returned).toEqual({ done: true, value: undefined });
    await expect(values.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' });
    await db.close();
  });

  describe('in the embedded engine (dynalite)', () => {
    const engine = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    let endpoint = '';
    beforeAll(async () => {
      closeLevelIteratorsOnReturn();
      await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', () => resolve()));
      endpoint = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => engine.close(() => resolve())));

    it('leaves no iterator open after queries a limit cuts short, with writes in between', async () => {
      // Prepare: before the fix, every Query left its iterator attached (and its tree snapshot alive).
      const client = localDynamoDbClient({ endpoint });
      await ensureMemoryTable(client, 'iterators');
      const resources = openResources();

      // Act
      try {
        for (let index = 0; index < 60; index += 1) {
          await client.send(
            new PutItemCommand({ TableName: 'iterators', Item: { pk: { S: 'p' }, sk: { S: `s${index}` } } }),
          );
          await client.send(
            new QueryCommand({
              TableName: 'iterators',
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': { S: 'p' } },
              ScanIndexForward: false,
              Limit: 1,
            }),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));

        // Assess
        expect(resources.size).toBeLessThanOrEqual(1);
      } finally {
        resources.restore();
        client.destroy();
      }
    });
  });
});
