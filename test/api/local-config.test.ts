import { spawn } from 'node:child_process';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileConfigProvider } from '../../lambdas/adapters/config/file-config-provider.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { jsonLinesLog } from '../../lambdas/adapters/observability/json-lines-log.ts';
import { SERVICE_CONFIGURATION } from '../../lambdas/app/service-tables.ts';
import { LocalApi } from '../support/local-api.ts';

describe('Local mode: configuration file', () => {
  const cleanups: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const freshFolder = async () => {
    const folder = await mkdtemp(join(tmpdir(), 'memory-hub-config-api-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    return folder;
  };

  it('applies an edited file on the next request, and keeps the last good value when an edit is invalid', async () => {
    // Prepare
    const path = join(await freshFolder(), 'config.json');
    let mtime = Date.now() / 1000;
    const edit = async (document: unknown) => {
      await writeFile(path, JSON.stringify(document));
      mtime += 1;
      await utimes(path, mtime, mtime);
    };
    await edit({ http: { maxBodyBytes: 1024 } });
    const metrics = new InMemoryMetrics();
    const warnings: string[] = [];
    const config = await FileConfigProvider.load({
      path,
      checkIntervalMs: 0,
      configuration: SERVICE_CONFIGURATION,
      metrics,
      log: jsonLinesLog((line) => warnings.push(line)),
    });
    const api = await LocalApi.start({ config });
    cleanups.push(() => api.stop());
    const token = await api.token();
    const note = { text: 'x'.repeat(1500) };

    // Act
    const underSmallLimit = await api.request('POST', '/v1/notes', { token, body: note });
    await edit({ http: { maxBodyBytes: 4096 } });
    const underLargerLimit = await api.request('POST', '/v1/notes', { token, body: note });
    await edit({ http: { maxBodyBytes: 5 } });
    const afterInvalidEdit = await api.request('POST', '/v1/notes', { token, body: note });

    // Assess
    expect(underSmallLimit.status).toBe(413);
    expect(underLargerLimit.status).toBe(201);
    expect(afterInvalidEdit.status).toBe(201);
    expect(metrics.countOf('config.invalid_rejected')).toBe(1);
    expect(warnings.join('\n')).toContain('http.maxBodyBytes');
  });

  it('`npm start` refuses an invalid file, exiting non-zero with a message naming the field', async () => {
    // Prepare
    const folder = await freshFolder();
    const path = join(folder, 'config.json');
    await writeFile(path, JSON.stringify({ retention: { noteHorizonDays: 0 } }));
    const child = spawn(process.execPath, ['bin/local-server.ts'], {
      env: { ...process.env, PORT: '0', MEMORY_HUB_DATA_DIR: join(folder, 'data'), MEMORY_HUB_CONFIG: path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => child.kill('SIGKILL'));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });

    // Act
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));

    // Assess
    expect(code).not.toBe(0);
    expect(output).toContain(
      `Memory Hub could not start: Invalid configuration in ${path}: retention.noteHorizonDays: `,
    );
    expect(output).not.toContain('listening on');
  });
});
