import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalApi } from '../support/local-api.ts';

const run = promisify(execFile);

/** The README's curl walkthrough, exactly as a reader would paste it. */
const walkthrough = (): string => {
  const readme = readFileSync('README.md', 'utf8');
  const block = /<!-- walkthrough:start -->\s*```bash\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(readme);
  if (!block?.[1]) throw new Error('README.md has no walkthrough block');
  return block[1];
};

describe('README walkthrough', () => {
  let api: LocalApi;

  beforeAll(async () => {
    api = await LocalApi.start();
  });

  afterAll(async () => {
    await api.stop();
  });

  it('runs verbatim against the local server and shows what it says it shows', async () => {
    const { stdout } = await run('bash', ['-c', `set -eu\n${walkthrough()}`], {
      env: { ...process.env, PORT: String(api.server.port), MEMORY_HUB_DATA_DIR: api.dataDir },
      timeout: 60_000,
    });

    const lines = stdout.split('\n');
    expect(JSON.parse(lines[0] as string)).toEqual({ status: 'ok', service: 'memory-hub' });
    expect(stdout).toContain('"text": "Prefers concise answers with code first"');
    expect(stdout).toMatch(/^412$/m);
    expect(stdout).toContain('"type": "project"');
    expect(stdout).toContain('"agent": "coder"');
    expect(stdout).toContain('"code": "not_found"');
    expect(stdout).toMatch(/^204\n404$/m);
    // Learned memory: provisional twice, then mature on the second session; a statement at once; the clamp.
    expect(stdout).toContain(
      [
        '{"key":"response.length","status":"provisional","applied":false}',
        '{"key":"response.length","status":"provisional","applied":false}',
        '{"key":"response.length","status":"mature","applied":true}',
        '{"key":"timezone","status":"mature"}',
      ].join('\n'),
    );
    expect(stdout).toContain('{"key":"response.length","scope":"organisation"}');
    expect(stdout).toContain('"response.length":{"value":"medium","source":"guardrail"');
    expect(stdout).toContain('"timezone":{"value":"Europe/Berlin","source":"personal"');
    expect(stdout).toContain('"reason":"enum.not_allowed"');
    expect(stdout).toContain('[{"kind":"note","text":"Release freeze starts Friday"}]');
  });
});
