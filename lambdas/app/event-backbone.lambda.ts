/**
 * AWS Lambda entry points of the event backbone: the outbox relay (stream-triggered, and the one-minute
 * sweep), which also moves each head projection the writer left behind. It runs no capability module: the record
 * kinds of the deployment come from the generated deployment document. Each module's own consumers are
 * exported by that module's entry.
 */
import { awsApplication } from '../composition/aws-application.ts';
import { eventBridgePublisher } from '../composition/aws-bus-and-workflows.ts';

const backbone = await awsApplication(process.env, [], { publisher: eventBridgePublisher });

export const relayOutboxStream = backbone.relayOutboxStream;
export const sweepOutbox = backbone.sweepOutbox;
