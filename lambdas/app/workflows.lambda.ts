/**
 * The task every workflow state machine invokes, once per attempt of each step: `{ workflow, step, runId,
 * input }` in, the next step's input out. Retry and catch are the state machine's, built from the same
 * policy the local runner follows. It serves every capability's workflows, so it is built from every module
 * that declares one and the search modules the search index rebuild needs (`STEP_FUNCTION_MODULES`), with the
 * embedder and the index the bundle was built for (the rebuild embeds with the model the searches use).
 */
import { analyze } from '../capabilities/retrieval/ranking/text-analysis.ts';
import { awsApplication } from '../composition/aws-application.ts';
import { bundledBackends } from '../composition/bundled-backends.ts';
import { STEP_FUNCTION_MODULES } from './workflow-modules.ts';

const workflows = await awsApplication(process.env, STEP_FUNCTION_MODULES, await bundledBackends({ analyze }));

export const runWorkflowStep = workflows.runWorkflowStep;
