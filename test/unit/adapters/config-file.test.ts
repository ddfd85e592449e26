import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidConfigError, loadConfigFile } from '../../../lambdas/adapters/config/config-file.ts';
import { DEFAULT_CONFIG } from '../../../lambdas/core/config/memory-hub-config.ts';

const configFile = async (content: string) => {
  const path = join(await mkdtemp(join(tmpdir(), 'memory-hub-config-')), 'config.json');
  await writeFile(path, content);
  return path;
};

describe('Function: loadConfigFile', () => {
  it('uses the defaults when no file is named', async () => {
    expect(await loadConfigFile(undefined)).toEqual(DEFAULT_CONFIG);
  });

  it('overrides only what the file sets', async () => {
    const config = await loadConfigFile(await configFile('{"retention": {"noteHorizonDays": 30}}'));
    expect(config.retention).toEqual({ noteHorizonDays: 30, idempotencyKeyHours: 24 });
    expect(config.http).toEqual(DEFAULT_CONFIG.http);
  });

  it('refuses an invalid threshold, naming the field', async () => {
    const path = await configFile('{"retention": {"noteHorizonDays": 0}, "listing": {"maxPageSize": "many"}}');
    const loading = loadConfigFile(path);
    await expect(loading).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(loading).rejects.toThrow(/retention\.noteHorizonDays: .*listing\.maxPageSize: /);
  });

  it('refuses unknown settings and files that are not JSON', async () => {
    await expect(loadConfigFile(await configFile('{"retention": {"noteHorizonDay": 3}}'))).rejects.toThrow(/retention/);
    await expect(loadConfigFile(await configFile('not json'))).rejects.toBeInstanceOf(InvalidConfigError);
  });
});
