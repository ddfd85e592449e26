/**
 * AWS Lambda entry points for learned memory: session events, beliefs and the applied view. The backend is
 * built once per execution environment, at init; each export is one function's handler.
 */
import { AwsEnvironment, createAwsBackend } from '../adapters/create-aws-backend.ts';
import * as handlers from './learning.handlers.ts';

const backend = await createAwsBackend(AwsEnvironment.parse(process.env));

export const appendSessionEvent = handlers.appendSessionEventHandler(backend);
export const listSessionEvents = handlers.listSessionEventsHandler(backend);
export const listBeliefs = handlers.listBeliefsHandler(backend);
export const getBelief = handlers.getBeliefHandler(backend);
export const listBeliefHistory = handlers.listBeliefHistoryHandler(backend);
export const correctBelief = handlers.correctBeliefHandler(backend);
export const forgetBelief = handlers.forgetBeliefHandler(backend);
export const resetBeliefs = handlers.resetBeliefsHandler(backend);
export const getAppliedMemory = handlers.getAppliedMemoryHandler(backend);
