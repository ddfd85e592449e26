/**
 * `npm start`: the whole service on this machine. Same handlers and core as in AWS; the embedded
 * DynamoDB-compatible engine persisted under $MEMORY_HUB_DATA_DIR (default .memory-hub/).
 */
import { resolve } from 'node:path';
import { localConfigProvider } from '../lambdas/adapters/config/file-config-provider.ts';
import { SERVICE_CONFIGURATION } from '../lambdas/app/service-tables.ts';
import { startLocalServer } from '../lambdas/local/local-server.ts';

const port = Number.parseInt(process.env.PORT ?? '8787', 10);
const dataDir = resolve(process.env.MEMORY_HUB_DATA_DIR ?? '.memory-hub');
const quiet = process.env.MEMORY_HUB_LOG === 'quiet';

try {
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`PORT must be a port number, not "${process.env.PORT}"`);
  // Read once here, then again whenever the file changes; an invalid edit is reported and skipped.
  const config = await localConfigProvider(process.env.MEMORY_HUB_CONFIG, { configuration: SERVICE_CONFIGURATION });
  const server = await startLocalServer({
    dataDir,
    config,
    port,
    // `npm run bench`'s cost runs: the meter reads every engine request and answer.
    meterEngineWork: process.env.MEMORY_HUB_METER_ENGINE_WORK === '1',
    log: quiet ? undefined : (line) => console.log(line),
  });
  console.log(`Memory Hub listening on ${server.url} (data in ${dataDir})`);
  console.log(`Mint a token:  TOKEN=$(npm run --silent token -- --tenant acme --sub alice)`);
  console.log(`Try it:        curl -H "Authorization: Bearer $TOKEN" ${server.url}/v1/notes`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    await server.close();
    // Measurement hooks for `npm run bench`: what each operation cost, and how long events took to apply.
    const { writeFile } = await import('node:fs/promises');
    if (process.env.MEMORY_HUB_COST_REPORT) {
      await writeFile(process.env.MEMORY_HUB_COST_REPORT, JSON.stringify(server.costs.report()));
    }
    if (process.env.MEMORY_HUB_RELAY_LAG_REPORT) {
      await writeFile(process.env.MEMORY_HUB_RELAY_LAG_REPORT, JSON.stringify(server.backend.local.bus.lagSamples));
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
} catch (error) {
  console.error(`Memory Hub could not start: ${(error as Error).message}`);
  process.exit(1);
}
