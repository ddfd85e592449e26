import type { OperationInput } from '../../../http/api-event.ts';
import { etagOf, expectedRevisionsOf } from '../../../http/entity-tags.ts';
import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { issuedCursor } from '../../../http/listing-cursors.ts';
import type { Operation } from '../../../http/operation.ts';
import { pageRequestOf } from '../../../http/page-size.ts';
import { created, jsonResponse, ok } from '../../../http/responses.ts';
import type { RecordView } from '../../../kernel/records/record-service.ts';
import type { CandidatesService } from '../candidates-service.ts';
import type { ProceduresService } from '../procedures-service.ts';
import type { TasksService } from '../tasks-service.ts';
import * as api from './procedures.operations.ts';

const projectOf = (input: OperationInput<Operation>): string => input.params.projectId as string;
const idOf = (input: OperationInput<Operation>): string => input.params.id as string;

const locationOf = (project: string, collection: string, id: string) => `/v1/projects/${project}/${collection}/${id}`;
const withEtag = <Content>(view: RecordView<Content>) => ({ etag: etagOf(view.id, view.revision) });
/** 201 with the record, its ETag and where it is read. */
const createdRecord = <Content>(result: { record: RecordView<Content>; replayed: boolean }, location: string) =>
  created(api.toRecordResponse(result.record), { ...withEtag(result.record), location, replayed: result.replayed });
const pageOf = <Content>(
  input: OperationInput<Operation>,
  page: { items: readonly RecordView<Content>[]; nextCursor?: string },
) => ({
  items: page.items.map(api.toRecordResponse),
  nextCursor: issuedCursor(input, page.nextCursor),
});

export interface ProceduresServices {
  readonly procedures: ProceduresService;
  readonly tasks: TasksService;
  readonly candidates: CandidatesService;
}

/** The procedural-memory operations' handlers, by export name. */
export const proceduresHandlers = ({ procedures, tasks, candidates }: ProceduresServices, http: HttpContext) => ({
  createProcedure: httpOperation(api.createProcedure, http).handler(async ({ scope, input }) => {
    const result = await procedures.create(scope, projectOf(input), input.body, input.idempotency);
    return createdRecord(result, locationOf(projectOf(input), 'procedures', result.record.id));
  }),
  listProcedures: httpOperation(api.listProcedures, http).handler(async ({ scope, input }) =>
    ok(pageOf(input, await procedures.list(scope, projectOf(input), pageRequestOf(http, input.query)))),
  ),
  retrieveProcedures: httpOperation(api.retrieveProcedures, http).handler(async ({ scope, input }) => {
    const retrieval = await procedures.retrieve(scope, projectOf(input), input.body);
    return ok({
      weights: retrieval.weights,
      candidates: retrieval.candidates,
      hits: retrieval.hits.map((hit) => ({
        procedure: api.toRecordResponse(hit.procedure),
        score: hit.score,
        features: hit.features,
        ...(hit.flags && { flags: hit.flags }),
      })),
    });
  }),
  procedureRetrievalFeedback: httpOperation(api.procedureFeedback, http).handler(async ({ scope, input }) =>
    ok(await procedures.feedback(scope, projectOf(input), input.body)),
  ),
  getProcedure: httpOperation(api.getProcedure, http).handler(async ({ scope, input }) => {
    const procedure = await procedures.get(scope, projectOf(input), idOf(input));
    return ok(api.toRecordResponse(procedure), withEtag(procedure));
  }),
  listProcedureHistory: httpOperation(api.procedureHistory, http).handler(async ({ scope, input }) =>
    ok(pageOf(input, await procedures.history(scope, projectOf(input), idOf(input), pageRequestOf(http, input.query)))),
  ),
  refineProcedure: httpOperation(api.refineProcedure, http).handler(async ({ scope, input }) => {
    const id = idOf(input);
    const procedure = await procedures.refine(
      scope,
      projectOf(input),
      id,
      expectedRevisionsOf(input.ifMatch, id),
      input.body,
    );
    return ok(api.toRecordResponse(procedure), withEtag(procedure));
  }),
  specializeProcedure: httpOperation(api.specializeProcedure, http).handler(async ({ scope, input }) => {
    const result = await procedures.specialize(scope, projectOf(input), idOf(input), input.body, input.idempotency);
    return createdRecord(result, locationOf(projectOf(input), 'procedures', result.record.id));
  }),
  retireProcedure: httpOperation(api.retireProcedure, http).handler(async ({ scope, input }) => {
    const id = idOf(input);
    const procedure = await procedures.retire(scope, projectOf(input), id, expectedRevisionsOf(input.ifMatch, id));
    return ok(api.toRecordResponse(procedure), withEtag(procedure));
  }),
  createTask: httpOperation(api.createTask, http).handler(async ({ scope, input }) => {
    const result = await tasks.create(scope, projectOf(input), input.body, input.idempotency);
    return createdRecord(result, locationOf(projectOf(input), 'tasks', result.record.id));
  }),
  listTasks: httpOperation(api.listTasks, http).handler(async ({ scope, input }) =>
    ok(pageOf(input, await tasks.list(scope, projectOf(input), pageRequestOf(http, input.query)))),
  ),
  getTask: httpOperation(api.getTask, http).handler(async ({ scope, input }) => {
    const task = await tasks.get(scope, projectOf(input), idOf(input));
    return ok(api.toRecordResponse(task), withEtag(task));
  }),
  replanTask: httpOperation(api.replanTask, http).handler(async ({ scope, input }) => {
    const id = idOf(input);
    const task = await tasks.replan(scope, projectOf(input), id, expectedRevisionsOf(input.ifMatch, id), input.body);
    return ok(api.toRecordResponse(task), withEtag(task));
  }),
  appendTaskRecord: httpOperation(api.appendTaskRecord, http).handler(async ({ scope, input }) => {
    const { entry, task } = await tasks.appendEntry(
      scope,
      projectOf(input),
      idOf(input),
      input.body,
      input.idempotency,
    );
    return created(
      { entry: api.toRecordResponse(entry.record), task: api.toRecordResponse(task) },
      {
        ...withEtag(entry.record),
        location: `${locationOf(projectOf(input), 'tasks', idOf(input))}/records`,
        replayed: entry.replayed,
      },
    );
  }),
  listTaskRecords: httpOperation(api.listTaskRecords, http).handler(async ({ scope, input }) =>
    ok(pageOf(input, await tasks.entries(scope, projectOf(input), idOf(input), pageRequestOf(http, input.query)))),
  ),
  addTaskEvidence: httpOperation(api.addTaskEvidence, http).handler(async ({ scope, input }) => {
    const result = await tasks.addEvidence(scope, projectOf(input), idOf(input), input.body, input.idempotency);
    return createdRecord(result, `${locationOf(projectOf(input), 'tasks', idOf(input))}/state`);
  }),
  getTaskState: httpOperation(api.getTaskState, http).handler(async ({ scope, input }) =>
    ok(await tasks.state(scope, projectOf(input), idOf(input))),
  ),
  alignTask: httpOperation(api.alignTask, http).handler(async ({ scope, input }) => {
    const alignment = await tasks.align(scope, projectOf(input), idOf(input), input.body);
    return ok({ ...alignment, corrections: alignment.corrections.map(api.toRecordResponse) });
  }),
  completeTask: httpOperation(api.completeTask, http).handler(async ({ scope, input }) => {
    const completion = await tasks.complete(scope, projectOf(input), idOf(input), input.body);
    return ok({
      task: api.toRecordResponse(completion.task),
      ...(completion.candidate && { candidate: api.toRecordResponse(completion.candidate) }),
      supported: completion.supported,
    });
  }),
  listProcedureCandidates: httpOperation(api.listCandidates, http).handler(async ({ scope, input }) =>
    ok(pageOf(input, await candidates.list(scope, projectOf(input), pageRequestOf(http, input.query)))),
  ),
  getProcedureCandidate: httpOperation(api.getCandidate, http).handler(async ({ scope, input }) => {
    const candidate = await candidates.get(scope, projectOf(input), idOf(input));
    return ok(api.toRecordResponse(candidate), withEtag(candidate));
  }),
  recordProcedureTrial: httpOperation(api.recordTrial, http).handler(async ({ scope, input }) => {
    const { candidate, replayed } = await candidates.addTrial(
      scope,
      projectOf(input),
      idOf(input),
      input.body,
      input.idempotency,
    );
    return jsonResponse(200, api.toRecordResponse(candidate), {
      ...withEtag(candidate),
      ...(replayed && { 'Idempotent-Replayed': 'true' }),
    });
  }),
  promoteProcedureCandidate: httpOperation(api.promoteCandidate, http).handler(async ({ scope, input }) => {
    const result = await candidates.promote(scope, projectOf(input), idOf(input), input.body);
    return ok({
      candidate: api.toRecordResponse(result.candidate),
      ...(result.decision && {
        decision: {
          ...result.decision,
          // −∞ (no trial) is not JSON.
          meanNetBenefit: Number.isFinite(result.decision.meanNetBenefit) ? result.decision.meanNetBenefit : null,
        },
      }),
      ...(result.procedure && { procedure: api.toRecordResponse(result.procedure) }),
    });
  }),
});
