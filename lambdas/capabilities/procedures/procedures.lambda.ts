/**
 * AWS Lambda entry points for the procedural-memory operations, built from the procedures module alone, once per
 * execution environment at init; each export is one function's handler (see `x-memory-hub.lambda` in the OpenAPI
 * document).
 */
import { awsApplication } from '../../composition/aws-application.ts';
import { proceduresModule } from './procedures.module.ts';

const procedures = await awsApplication(process.env, [proceduresModule]);

export const createProcedure = procedures.handler('createProcedure');
export const listProcedures = procedures.handler('listProcedures');
export const retrieveProcedures = procedures.handler('retrieveProcedures');
export const procedureRetrievalFeedback = procedures.handler('procedureRetrievalFeedback');
export const getProcedure = procedures.handler('getProcedure');
export const listProcedureHistory = procedures.handler('listProcedureHistory');
export const refineProcedure = procedures.handler('refineProcedure');
export const specializeProcedure = procedures.handler('specializeProcedure');
export const retireProcedure = procedures.handler('retireProcedure');
export const createTask = procedures.handler('createTask');
export const listTasks = procedures.handler('listTasks');
export const getTask = procedures.handler('getTask');
export const replanTask = procedures.handler('replanTask');
export const appendTaskRecord = procedures.handler('appendTaskRecord');
export const listTaskRecords = procedures.handler('listTaskRecords');
export const addTaskEvidence = procedures.handler('addTaskEvidence');
export const getTaskState = procedures.handler('getTaskState');
export const alignTask = procedures.handler('alignTask');
export const completeTask = procedures.handler('completeTask');
export const listProcedureCandidates = procedures.handler('listProcedureCandidates');
export const getProcedureCandidate = procedures.handler('getProcedureCandidate');
export const recordProcedureTrial = procedures.handler('recordProcedureTrial');
export const promoteProcedureCandidate = procedures.handler('promoteProcedureCandidate');
