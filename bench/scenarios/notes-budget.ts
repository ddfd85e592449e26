/** DESIGN.md §11: at 120 operations/s, p95 ≤ 40 ms for reads and ≤ 60 ms for writes, and no errors. */
import { NOTE_OPERATIONS, type NoteOperation, OPERATION_KIND } from '../load/notes-workload.ts';
import type { LatencyBudget } from '../load/phase-analysis.ts';

export const READ_P95_BUDGET_MS = 40;
export const WRITE_P95_BUDGET_MS = 60;
/** A rate is sustained only if achieved throughput stays at or above this share of the offered rate. */
export const MINIMUM_ACHIEVED_SHARE = 0.95;

export const budgetOf = (operation: NoteOperation): number =>
  OPERATION_KIND[operation] === 'read' ? READ_P95_BUDGET_MS : WRITE_P95_BUDGET_MS;

export const NOTES_BUDGET: LatencyBudget = {
  p95ByOperation: Object.fromEntries(NOTE_OPERATIONS.map((operation) => [operation, budgetOf(operation)])),
  minimumAchievedShare: MINIMUM_ACHIEVED_SHARE,
};
