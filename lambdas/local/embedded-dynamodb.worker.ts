/**
 * Runs the embedded DynamoDB-compatible engine on its own thread, so local mode uses the machine's second
 * core: the server's event loop runs the handlers, this one the engine (its request parsing and LevelDB).
 */
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';

const { path } = workerData as { path?: string };
const server = dynalite({ ...(path && { path }), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

server.once('error', (error: Error) => parentPort?.postMessage({ type: 'error', message: error.message }));
server.listen(0, '127.0.0.1', () => {
  parentPort?.postMessage({ type: 'listening', port: (server.address() as AddressInfo).port });
});

parentPort?.on('message', (message: { type: string }) => {
  if (message.type === 'close') server.close(() => parentPort?.postMessage({ type: 'closed' }));
});
