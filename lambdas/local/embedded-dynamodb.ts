import { MessageChannel, Worker } from 'node:worker_threads';
import { EngineChannelHandler } from './engine-channel.ts';

export interface EmbeddedDynamoDb {
  readonly endpoint: string;
  /** The SDK transport over the worker's message channel (no loopback HTTP). */
  readonly requestHandler: EngineChannelHandler;
  close(): Promise<void>;
}

/**
 * The embedded DynamoDB-compatible engine (dynalite) on a worker thread of its own, reached over the worker's
 * message channel (`requestHandler`) and on a loopback port: journaled in the folder `path`, or in memory when no
 * path is given (tests).
 */
export const startEmbeddedDynamoDb = async (path?: string): Promise<EmbeddedDynamoDb> => {
  const worker = new Worker(new URL('./embedded-dynamodb.worker.ts', import.meta.url), { workerData: { path } });
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (message: { type: string; port?: number; message?: string }) => {
        if (message.type === 'listening' && message.port) resolve(message.port);
        if (message.type === 'error')
          reject(new Error(`The embedded DynamoDB engine did not start: ${message.message}`));
      });
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  const channel = new MessageChannel();
  worker.postMessage({ type: 'channel', port: channel.port2 }, [channel.port2]);
  const requestHandler = new EngineChannelHandler(channel.port1);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requestHandler,
    close: async () => {
      requestHandler.close();
      channel.port1.close();
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (message: { type: string }) => {
          if (message.type === 'closed') resolve();
        });
      });
      worker.postMessage({ type: 'close' });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
};
