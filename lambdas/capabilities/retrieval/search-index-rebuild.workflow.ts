import { Reconciler, type ReconcilerDependencies } from '../../kernel/events/reconciler.ts';
import type { NamespaceRebuilder } from '../../kernel/search/search-projection.ts';
import { CATCH_ALL, STANDARD_RETRY, type WorkflowPolicy } from '../../kernel/workflows/workflow-definition.ts';
import type { WorkflowImplementation } from '../../kernel/workflows/workflow-step-executor.ts';

/**
 * The deployed reconciliation of the search index: every searchable namespace's index rebuilt from its canonical
 * heads (their head projections repaired on the way), so an entry a lost or dead-lettered event left stale is
 * put right within a day even if nobody replays it. On demand too, from the workflow admin operations.
 */
export const SEARCH_INDEX_REBUILD: WorkflowPolicy = {
  name: 'search-index-rebuild',
  description: 'Rebuilds each searchable namespace’s search index from its canonical heads',
  schedule: 'rate(1 day)',
  steps: [
    { name: 'rebuild-namespaces', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'report', retry: STANDARD_RETRY, catch: CATCH_ALL },
  ],
  onFailure: 'record-failure',
};

export const searchIndexRebuild = (
  deps: Omit<ReconcilerDependencies, 'relay' | 'rebuilders'> & { readonly rebuilder: NamespaceRebuilder },
): WorkflowImplementation => {
  // No relay: the outbox has its own sweep; this job only rebuilds what the index derives.
  const reconciler = new Reconciler({ ...deps, rebuilders: [deps.rebuilder] });
  return {
    policy: SEARCH_INDEX_REBUILD,
    steps: {
      'rebuild-namespaces': async (input) => {
        const report = await reconciler.run({ tenant: input.tenant ?? undefined, onlyRebuilt: true });
        return {
          ...input,
          counts: {
            ...input.counts,
            namespaces: report.namespaces,
            records: report.records,
            headsRepaired: report.headsRepaired,
            indexesRebuilt: report.projectionsRebuilt,
          },
        };
      },
      report: async (input) => input,
      'record-failure': async (input) => input,
    },
  };
};
