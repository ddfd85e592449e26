import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError } from '../../lambdas/local/data-dir-lock.ts';
import { LocalApi } from '../support/local-api.ts';

describe('Local mode', () => {
  const cleanups: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const freshDataDir = async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'memory-hub-local-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    return dataDir;
  };

  it('creates the table and a key file readable only by its owner on first start, and keeps data across restarts', async () => {
    // Prepare
    const dataDir = await freshDataDir();
    const first = await LocalApi.start({ dataDir, persist: true });
    const token = await first.token({ sub: 'keeper' });
    const created = await first.request<{ id: string }>('POST', '/v1/notes', {
      token,
      body: { text: 'survives restarts' },
    });
    await first.stop({ keepData: true });

    // Act
    const second = await LocalApi.start({ dataDir, persist: true });
    cleanups.push(() => second.stop({ keepData: true }));
    const read = await second.request<{ text: string }>('GET', `/v1/notes/${created.body.id}`, { token });

    // Assess
    expect(read.status).toBe(200);
    expect(read.body.text).toBe('survives restarts');
    const keyFile = await stat(join(dataDir, 'keys', 'content-key.bin'));
    expect(keyFile.mode & 0o777).toBe(0o600);
    expect(keyFile.size).toBe(32);
    expect((await stat(join(dataDir, 'issuer', 'signing-key.pem'))).mode & 0o777).toBe(0o600);
  });

  it('refuses clearly to start a second server on a data folder another server holds', async () => {
    const dataDir = await freshDataDir();
    const holder = await LocalApi.start({ dataDir });
    cleanups.push(() => holder.stop({ keepData: true }));

    const second = LocalApi.start({ dataDir });

    await expect(second).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(second).rejects.toThrow(/Another Memory Hub server \(pid \d+\) is using the data folder/);
    expect((await holder.request('GET', '/v1/health')).status).toBe(200);
  });

  it('lets exactly one of two servers starting at once take over a stale lock', async () => {
    const dataDir = await freshDataDir();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dataDir, 'server.lock'), '999999999');
    const { lockDataDir } = await import('../../lambdas/local/data-dir-lock.ts');

    const outcomes = await Promise.allSettled([lockDataDir(dataDir), lockDataDir(dataDir)]);

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(DataDirInUseError);
    const release = outcomes.find((outcome) => outcome.status === 'fulfilled');
    if (release?.status === 'fulfilled') await release.value();
  });

  it('takes over a lock left behind by a server that no longer runs', async () => {
    const dataDir = await freshDataDir();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dataDir, 'server.lock'), '999999999');

    const api = await LocalApi.start({ dataDir });
    cleanups.push(() => api.stop({ keepData: true }));

    expect((await api.request('GET', '/v1/health')).status).toBe(200);
  });

  it("starts with `npm start`'s script, prints its URL and how to mint a token, and shuts down cleanly on SIGTERM", async () => {
    // Prepare
    const dataDir = await freshDataDir();
    const child: ChildProcess = spawn(process.execPath, ['bin/local-server.ts'], {
      env: { ...process.env, PORT: '0', MEMORY_HUB_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => child.kill('SIGKILL'));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    // Act
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start-up line in: ${output}`)), 20_000);
      child.stdout?.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    const health = await fetch(`${url}/v1/health`);
    child.kill('SIGTERM');

    // Assess
    expect(health.status).toBe(200);
    expect(output).toContain('npm run --silent token -- --tenant acme --sub alice');
    expect(await exited).toBe(0);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  });
});
