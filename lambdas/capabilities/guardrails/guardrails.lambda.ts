/**
 * AWS Lambda entry points for guardrails, the organisation's and each project's. Built from the guardrails
 * module alone, once per execution environment at init; each export is one function's handler.
 */
import { awsApplication } from '../../composition/aws-application.ts';
import { guardrailsModule } from './guardrails.module.ts';

const guardrails = await awsApplication(process.env, [guardrailsModule]);

export const putGuardrail = guardrails.handler('putGuardrail');
export const getGuardrail = guardrails.handler('getGuardrail');
export const listGuardrails = guardrails.handler('listGuardrails');
export const deleteGuardrail = guardrails.handler('deleteGuardrail');
