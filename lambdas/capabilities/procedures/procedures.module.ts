import { defineModule } from '../../composition/capability-module.ts';
import { kernelRetention } from '../../kernel/config/kernel-config.ts';
import { CandidateContent, PROCEDURE_CANDIDATE } from './candidate.schema.ts';
import { CandidatesService } from './candidates-service.ts';
import { contentWordJudge } from './divergence.ts';
import { proceduresHandlers } from './http/procedures.handlers.ts';
import { PROCEDURES_OPERATIONS } from './http/procedures.operations.ts';
import { POOL_CHANGES, POOL_CHANGES_ID_PATTERN, PoolChangeLog, PoolChanges } from './pool-change-log.ts';
import { PROCEDURE, ProcedureContent } from './procedure.schema.ts';
import { procedureSearchProjection } from './procedure.search.ts';
import { ProcedurePoolCache } from './procedure-pool-cache.ts';
import { proceduresSettings } from './procedures.config.ts';
import { ProceduresService } from './procedures-service.ts';
import { RETRIEVAL_BIAS, RETRIEVAL_BIAS_ID_PATTERN, RetrievalBias } from './retrieval-bias.schema.ts';
import { BlackboardEntry, StoredEvidence, TASK, TASK_EVIDENCE, TASK_RECORD, TaskContent } from './task.schema.ts';
import { TasksService } from './tasks-service.ts';

/**
 * Procedural memory and team coordination (reference 001): a project's versioned procedure pool, retrieved by
 * adaptive weights; task graphs with a blackboard and state evidence; divergence-aware alignment; candidates
 * from completed tasks, promoted only through recorded trials.
 */
export const proceduresModule = defineModule({
  name: 'procedures',
  recordKinds: [PROCEDURE, PROCEDURE_CANDIDATE, RETRIEVAL_BIAS, POOL_CHANGES, TASK, TASK_RECORD, TASK_EVIDENCE],
  operations: PROCEDURES_OPERATIONS,
  errorStatuses: {
    'procedures.role_required': 403,
    'procedures.retired': 409,
    'procedures.prerequisites_unmet': 409,
    'procedures.invalid_transition': 409,
    'procedures.stale_candidate': 409,
  },
  config: [proceduresSettings],
  build: ({ kernel, http }) => {
    const settings = () => proceduresSettings.of(kernel.config.current());
    const longLived = () => settings().procedureHorizonDays;
    const taskLived = () => settings().taskHorizonDays;
    const procedureRecords = kernel.recordService({
      kind: PROCEDURE,
      content: ProcedureContent,
      horizonDays: longLived,
    });
    const candidateRecords = kernel.recordService({
      kind: PROCEDURE_CANDIDATE,
      content: CandidateContent,
      horizonDays: longLived,
    });
    const pools = new ProcedurePoolCache(
      new PoolChangeLog(
        kernel.recordService({
          kind: POOL_CHANGES,
          content: PoolChanges,
          horizonDays: longLived,
          idPattern: POOL_CHANGES_ID_PATTERN,
        }),
      ),
    );
    const procedures = new ProceduresService({
      procedures: procedureRecords,
      pools,
      biases: kernel.recordService({
        kind: RETRIEVAL_BIAS,
        content: RetrievalBias,
        horizonDays: longLived,
        idPattern: RETRIEVAL_BIAS_ID_PATTERN,
      }),
      settings,
    });
    const tasks = new TasksService({
      tasks: kernel.recordService({ kind: TASK, content: TaskContent, horizonDays: taskLived }),
      entries: kernel.recordService({ kind: TASK_RECORD, content: BlackboardEntry, horizonDays: taskLived }),
      evidence: kernel.recordService({ kind: TASK_EVIDENCE, content: StoredEvidence, horizonDays: taskLived }),
      candidates: candidateRecords,
      procedures: procedureRecords,
      judge: contentWordJudge,
      settings,
      idempotency: kernel.idempotency,
      idempotencyKeyHours: () => kernelRetention.of(kernel.config.current()).idempotencyKeyHours,
      clock: kernel.clock,
      ids: kernel.ids,
    });
    const candidates = new CandidatesService({
      candidates: candidateRecords,
      procedures: procedureRecords,
      pools,
      settings,
      clock: kernel.clock,
    });
    const services = { procedures, tasks, candidates };
    return {
      services,
      handlers: proceduresHandlers(services, http),
      searchable: [procedureSearchProjection(procedureRecords)],
    };
  },
});
