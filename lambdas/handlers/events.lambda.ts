/**
 * AWS Lambda entry points of the event backbone: the outbox relay (stream-triggered, and the one-minute
 * sweep) and the consumers behind the bus's rules.
 */
import { AwsEnvironment, createAwsBackend } from '../adapters/create-aws-backend.ts';
import { consumerHandler, relayOutboxStreamHandler, sweepOutboxHandler } from './events.handlers.ts';

const backend = await createAwsBackend(AwsEnvironment.parse(process.env));

export const relayOutboxStream = relayOutboxStreamHandler(backend.system.relay);
export const sweepOutbox = sweepOutboxHandler(backend.system.relay);
export const projectHead = consumerHandler(backend.system.consumers.headProjection);
export const recordAudit = consumerHandler(backend.system.consumers.audit);
