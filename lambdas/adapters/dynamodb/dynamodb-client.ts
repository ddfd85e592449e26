import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** A client for the embedded engine on this machine: loopback only, throwaway credentials it ignores. */
export const localDynamoDbClient = (endpoint: string): DynamoDBClient =>
  new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  });
