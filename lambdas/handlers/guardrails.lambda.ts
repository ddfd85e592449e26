/**
 * AWS Lambda entry points for guardrails, the organisation's and each project's. The backend is built once
 * per execution environment, at init; each export is one function's handler.
 */
import { AwsEnvironment, createAwsBackend } from '../adapters/create-aws-backend.ts';
import * as handlers from './guardrails.handlers.ts';

const backend = await createAwsBackend(AwsEnvironment.parse(process.env));

export const putGuardrail = handlers.putGuardrailHandler(backend);
export const getGuardrail = handlers.getGuardrailHandler(backend);
export const listGuardrails = handlers.listGuardrailsHandler(backend);
export const deleteGuardrail = handlers.deleteGuardrailHandler(backend);
