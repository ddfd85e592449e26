import { describe, expect, it } from 'vitest';
import { deploymentDocument } from '../../../lambdas/app/documents.ts';
import { SERVICE } from '../../../lambdas/app/service-tables.ts';
import { AUDIT_CONSUMER, AuditConsumer } from '../../../lambdas/capabilities/audit/audit.consumer.ts';
import {
  SEARCH_INDEX_CONSUMER,
  SearchIndexConsumer,
} from '../../../lambdas/capabilities/retrieval/search-index.consumer.ts';
import type { AuditTrail } from '../../../lambdas/kernel/audit/audit-trail.port.ts';
import type { EventConsumer } from '../../../lambdas/kernel/events/event-consumer.port.ts';
import type { RecordEvent } from '../../../lambdas/kernel/events/record-event.schema.ts';
import type { NamespaceDirectory } from '../../../lambdas/kernel/records/namespace-directory.port.ts';

const eventOfKind = (recordKind: string): RecordEvent => ({
  event_id: '01JZ0000000000000000000000',
  event_type: 'record.created',
  tenant: 'acme',
  namespace_hash: 'hash',
  record_kind: recordKind,
  record_id: 'r1',
  revision: 1,
  actor: { principal: 'alice', client: 'agent-app' },
  idempotency_key: null,
  schema_version: 1,
  occurred_at: '2026-06-01T00:00:00.000Z',
});

const unreachable = () => {
  throw new Error('not reached in this test');
};

/** A directory that records being asked and knows no namespace: the first storage a consumer touches. */
const directoryTouching = (touched: () => void): NamespaceDirectory =>
  ({
    resolve: async () => {
      touched();
      return undefined;
    },
  }) as unknown as NamespaceDirectory;

/** Each consumer of the deployment, built on ports that only record whether the consumer went to storage. */
const consumersTouchingStorage: Record<string, (touched: () => void) => EventConsumer> = {
  [SEARCH_INDEX_CONSUMER]: (touched) =>
    new SearchIndexConsumer({
      index: { name: 'test', apply: unreachable, rebuild: unreachable, candidates: unreachable },
      revisions: { getHead: unreachable },
      directory: directoryTouching(touched),
      kinds: SERVICE.kinds,
      projections: () => [],
      embedder: { model: 'test', dimensions: 1, embed: unreachable },
    }),
  [AUDIT_CONSUMER]: (touched) =>
    new AuditConsumer({
      trail: {
        append: async () => {
          touched();
          return 'appended';
        },
      } as unknown as AuditTrail,
      kinds: SERVICE.kinds,
    }),
};

/** The rule on the bus lets through only a consumer's `recordKinds`: each must be exactly what it does not ignore. */
describe('Module: deployment document', () => {
  describe('Method: consumers[].recordKinds', () => {
    it.each(deploymentDocument().consumers.map((consumer) => [consumer.name, consumer.recordKinds] as const))(
      'lists for %s exactly the kinds whose events it acts on',
      async (name, listed) => {
        // Prepare
        const build = consumersTouchingStorage[name];
        if (build === undefined) throw new Error(`no test double for the consumer ${name}`);
        const acted: string[] = [];

        // Act: one event of every kind the deployment has
        for (const kind of SERVICE.kinds) {
          let touched = false;
          const consumer = build(() => {
            touched = true;
          });
          const outcome = await consumer.consume(eventOfKind(kind.name)).catch(() => 'failed');
          if (touched) acted.push(kind.name);
          else expect(outcome, kind.name).toBe('ignored');
        }

        // Assess
        expect(acted).toEqual(listed);
        expect(listed.length).toBeGreaterThan(0);
      },
    );
  });
});
