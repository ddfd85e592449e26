/**
 * AWS Lambda entry points for learned memory: session events, beliefs and the applied view. Built from the
 * learning module (and the guardrails module it applies), once per execution environment at init; each export
 * is one function's handler.
 */
import { awsApplication } from '../../composition/aws-application.ts';
import { learningModule } from './learning.module.ts';

const learning = await awsApplication(process.env, [learningModule]);

export const appendSessionEvent = learning.handler('appendSessionEvent');
export const listSessionEvents = learning.handler('listSessionEvents');
export const listBeliefs = learning.handler('listBeliefs');
export const getBelief = learning.handler('getBelief');
export const listBeliefHistory = learning.handler('listBeliefHistory');
export const correctBelief = learning.handler('correctBelief');
export const forgetBelief = learning.handler('forgetBelief');
export const resetBeliefs = learning.handler('resetBeliefs');
export const getAppliedMemory = learning.handler('getAppliedMemory');
