import * as z from 'zod';
import { NotFoundError } from '../../kernel/errors/domain-error.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';
import type { RecordService } from '../../kernel/records/record-service.ts';

/*
 * The project's pool change log: one small record, `changes`, that every write to the pool (create, refine,
 * specialise, retire, promote) moves forward with the id it changed, by compare-and-set. A function that keeps
 * the pool warm reads it before each retrieval (one item) and re-reads only the procedures changed since its
 * copy, instead of listing the whole pool; when more changed than the log remembers, it lists again.
 */

export const POOL_CHANGES = defineRecordKind({ name: 'procedure-pool', audited: false });
export const POOL_CHANGES_ID = 'changes';
export const POOL_CHANGES_ID_PATTERN = /^changes$/;
export const POOL_CHANGES_REMEMBERED = 200;

export const PoolChanges = z
  .object({
    version: z.number().int().min(0),
    /** The newest changes, oldest first: each the version it made and the procedure it changed. */
    recent: z.array(z.object({ version: z.number().int(), id: z.string() }).strict()).max(POOL_CHANGES_REMEMBERED),
  })
  .strict();
export type PoolChanges = z.infer<typeof PoolChanges>;

export const NO_CHANGES: PoolChanges = { version: 0, recent: [] };

/** What the pool cache needs of the log. */
export interface PoolChangesReader {
  read(scope: Scope, project: string): Promise<PoolChanges>;
  record(scope: Scope, project: string, id: string): Promise<number>;
}

export class PoolChangeLog implements PoolChangesReader {
  readonly #records: RecordService<PoolChanges>;

  constructor(records: RecordService<PoolChanges>) {
    this.#records = records;
  }

  async read(scope: Scope, project: string): Promise<PoolChanges & { readonly revision?: number }> {
    try {
      const record = await this.#records.get(scope, { project }, POOL_CHANGES_ID);
      return { ...(record.content ?? NO_CHANGES), revision: record.revision };
    } catch (error) {
      if (error instanceof NotFoundError) return NO_CHANGES;
      throw error;
    }
  }

  /** Moves the log forward with `id`; returns the version it made. */
  async record(scope: Scope, project: string, id: string): Promise<number> {
    const written = await this.#records.reviseCurrent(
      scope,
      { project },
      POOL_CHANGES_ID,
      (current) => {
        const version = (current?.version ?? 0) + 1;
        return { version, recent: [...(current?.recent ?? []), { version, id }].slice(-POOL_CHANGES_REMEMBERED) };
      },
      { createIfAbsent: true },
    );
    return (written.content as PoolChanges).version;
  }
}
