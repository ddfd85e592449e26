import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { HttpHandlerOptions, HttpRequest, HttpResponse, RequestHandler } from '@smithy/types';
import { AWS_CLIENT_DEFAULTS } from '../aws-client-defaults.ts';

/** Where the embedded engine answers: its loopback URL, and an in-process transport when it offers one. */
export interface LocalDynamoDbEngine {
  readonly endpoint: string;
  readonly requestHandler?: RequestHandler<HttpRequest, HttpResponse, HttpHandlerOptions> | undefined;
}

/**
 * A client for the embedded engine on this machine: throwaway credentials it ignores, and the engine's own
 * transport when it has one (everything above the transport is the SDK's, as against DynamoDB).
 */
export const localDynamoDbClient = (engine: LocalDynamoDbEngine): DynamoDBClient =>
  new DynamoDBClient({
    endpoint: engine.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...AWS_CLIENT_DEFAULTS,
    ...(engine.requestHandler && { requestHandler: engine.requestHandler }),
  });
