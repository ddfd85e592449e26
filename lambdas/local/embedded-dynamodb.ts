import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface EmbeddedDynamoDb {
  readonly endpoint: string;
  close(): Promise<void>;
}

/**
 * The embedded DynamoDB-compatible engine (dynalite) on a loopback port: persisted under `path`, or in
 * memory when no path is given (tests).
 */
export const startEmbeddedDynamoDb = async (path?: string): Promise<EmbeddedDynamoDb> => {
  const server = dynalite({ ...(path && { path }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
};
