/** The procedures-load scenario's budgets (DESIGN.md §11, issue 13) and what its pool retrieval measures. */
import type { LatencyBudget } from '../load/phase-analysis.ts';
import { PROCEDURES_OPERATION_KIND, PROCEDURES_OPERATIONS } from '../load/procedures-workload.ts';
import type { LatencySummary } from '../stats.ts';
import { MINIMUM_ACHIEVED_SHARE, READ_P95_BUDGET_MS, WRITE_P95_BUDGET_MS } from './notes-budget.ts';

export const PROCEDURES_BUDGET: LatencyBudget = {
  p95ByOperation: Object.fromEntries(
    PROCEDURES_OPERATIONS.map((operation) => [
      operation,
      PROCEDURES_OPERATION_KIND[operation] === 'read' ? READ_P95_BUDGET_MS : WRITE_P95_BUDGET_MS,
    ]),
  ),
  minimumAchievedShare: MINIMUM_ACHIEVED_SHARE,
};

/** Issue 13's budget for retrieval over a pool of 10,000 procedures. */
export const POOL_RETRIEVAL_P95_BUDGET_MS = 40;

export interface PoolRetrieval {
  readonly pool: number;
  readonly seedSeconds: number;
  /** The first retrieval on the server: it lists and decrypts the whole pool. */
  readonly firstMs: number;
  readonly warm: LatencySummary;
  readonly candidates: number;
  readonly errors: number;
}
