import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LocalApi } from '../support/local-api.ts';

const run = promisify(execFile);

describe('Command: npm run replay', () => {
  it('re-drives the dead letters kept in the data folder, once, and reports it', async () => {
    // Prepare: a server whose audit consumer keeps failing dead-letters one event, then stops
    const first = await LocalApi.start({ persist: true });
    const { consumers } = first.server.backend.system;
    (consumers['audit-trail'] as { consume: unknown }).consume = async () => {
      throw Object.assign(new Error('down'), { name: 'ServiceUnavailableError' });
    };
    const writer = await first.token({ sub: 'writer' });
    const admin = await first.token({ sub: 'boss', groups: ['org:admin'] });
    await first.request('POST', '/v1/notes', { token: writer, body: { text: 'waits for replay' } });
    await first.server.relay.idle();
    await first.stop({ keepData: true });
    const env = { ...process.env, MEMORY_HUB_DATA_DIR: first.dataDir };

    try {
      // Act
      const replayed = await run(process.execPath, ['bin/replay-dead-letters.ts'], { env });
      const again = await run(process.execPath, ['bin/replay-dead-letters.ts'], { env });

      // Assess
      expect(JSON.parse(replayed.stdout)).toMatchObject({
        mode: 'local',
        deadLetters: { replayed: 1, stillFailing: 0 },
      });
      expect(JSON.parse(again.stdout)).toMatchObject({ deadLetters: { replayed: 0, stillFailing: 0 } });
      const second = await LocalApi.start({ persist: true, dataDir: first.dataDir });
      const audit = await second.request<{ items: { action: string }[] }>('GET', '/v1/audit', { token: admin });
      await second.stop({ keepData: true });
      expect(audit.body.items.map((entry) => entry.action)).toEqual(['record.created']);
    } finally {
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });

  it('refuses clearly while a server holds the data folder', async () => {
    const api = await LocalApi.start();
    try {
      const failure = await run(process.execPath, ['bin/replay-dead-letters.ts'], {
        env: { ...process.env, MEMORY_HUB_DATA_DIR: api.dataDir },
      }).catch((error: { code: number; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 1 });
      expect((failure as { stderr: string }).stderr).toMatch(
        /Another Memory Hub server \(pid \d+\) is using the data folder/,
      );
    } finally {
      await api.stop();
    }
  });
});
