import { mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_FILE_CHECK_INTERVAL_MS,
  FileConfigProvider,
  localConfigProvider,
} from '../../../lambdas/adapters/config/file-config-provider.ts';
import { StaticConfigProvider } from '../../../lambdas/adapters/config/static-config-provider.ts';
import { jsonLinesLog } from '../../../lambdas/adapters/observability/json-lines-log.ts';
import { DEFAULT_CONFIG, SERVICE_CONFIGURATION } from '../../../lambdas/app/service-tables.ts';
import { ConfigUnavailableError, InvalidConfigError } from '../../../lambdas/kernel/config/config.errors.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { describeConfigProviderContract } from '../../contract/config-provider.contract.ts';

/** A config file in a fresh folder. Each write moves the mtime on by a second, as a human edit would. */
const configFolder = async () => {
  const folder = await mkdtemp(join(tmpdir(), 'memory-hub-config-'));
  const path = join(folder, 'config.json');
  let mtime = Date.now() / 1000;
  return {
    folder,
    path,
    write: async (text: string, target = path) => {
      await writeFile(target, text);
      mtime += 1;
      await utimes(target, mtime, mtime);
    },
    close: () => rm(folder, { recursive: true, force: true }),
  };
};

describeConfigProviderContract('FileConfigProvider', async () => {
  const folder = await configFolder();
  return {
    source: folder.path,
    ttlMs: DEFAULT_FILE_CHECK_INTERVAL_MS,
    publish: (text) => folder.write(text),
    breakSource: () => rm(folder.path, { force: true }),
    load: (dependencies) =>
      FileConfigProvider.load({ path: folder.path, configuration: SERVICE_CONFIGURATION, ...dependencies }),
    close: folder.close,
  };
});

describe('Class: FileConfigProvider', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const folder = async () => {
    const created = await configFolder();
    cleanups.push(created.close);
    return created;
  };

  describe('Method: refresh', () => {
    it('sees a file replaced by rename, as editors save it', async () => {
      // Prepare
      const { path, write, folder: dir } = await folder();
      await write('{"listing": {"defaultPageSize": 10}}');
      const clock = new ManualClock();
      const provider = await FileConfigProvider.load({
        path,
        configuration: SERVICE_CONFIGURATION,
        clock,
        log: jsonLinesLog(() => undefined),
      });
      await write('{"listing": {"defaultPageSize": 11}}', join(dir, 'config.json.tmp'));
      await rename(join(dir, 'config.json.tmp'), path);

      // Act
      clock.advance(DEFAULT_FILE_CHECK_INTERVAL_MS);
      await provider.refresh();

      // Assess
      expect(provider.current().listing.defaultPageSize).toBe(11);
    });

    it('honours its check interval', async () => {
      const { path, write } = await folder();
      await write('{}');
      const clock = new ManualClock();
      const provider = await FileConfigProvider.load({
        path,
        configuration: SERVICE_CONFIGURATION,
        clock,
        checkIntervalMs: 50,
      });
      await write('{"http": {"maxBodyBytes": 2048}}');

      clock.advance(49);
      await provider.refresh();
      const early = provider.current().http.maxBodyBytes;
      clock.advance(1);
      await provider.refresh();

      expect(early).toBe(DEFAULT_CONFIG.http.maxBodyBytes);
      expect(provider.current().http.maxBodyBytes).toBe(2048);
    });

    it('reports a removed file by its error code', async () => {
      const { path, write } = await folder();
      await write('{}');
      const clock = new ManualClock();
      const warnings: string[] = [];
      const provider = await FileConfigProvider.load({
        path,
        configuration: SERVICE_CONFIGURATION,
        clock,
        log: jsonLinesLog((line) => warnings.push(line)),
      });
      await rm(path);

      clock.advance(DEFAULT_FILE_CHECK_INTERVAL_MS);
      await provider.refresh();

      expect(warnings.map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({ source: path, reason: 'ENOENT' }),
      ]);
      expect(provider.current()).toEqual(DEFAULT_CONFIG);
    });
  });

  describe('Method: load', () => {
    const loadedFrom = async (text: string) => {
      const { path, write } = await folder();
      await write(text);
      return { path, loading: FileConfigProvider.load({ path, configuration: SERVICE_CONFIGURATION }) };
    };

    it('refuses an invalid file with a message naming each wrong field', async () => {
      // Prepare & Act
      const { path, loading } = await loadedFrom(
        JSON.stringify({ retention: { noteHorizonDays: 0 }, listing: { maxPageSize: 'many' } }),
      );

      // Assess
      await expect(loading).rejects.toBeInstanceOf(InvalidConfigError);
      await expect(loading).rejects.toThrow(`Invalid configuration in ${path}: retention.noteHorizonDays: `);
      await expect(loading).rejects.toThrow(/; listing\.maxPageSize: /);
    });

    it('refuses an invalid per-agent override, naming the agent and the field', async () => {
      const { loading } = await loadedFrom(
        JSON.stringify({ agents: { coder: { learning: { decayAfterDays: 365 } } } }),
      );

      await expect(loading).rejects.toThrow(/agents\.coder\.learning\.decayAfterDays: must not exceed/);
    });

    it('refuses a file that is not JSON', async () => {
      const { loading } = await loadedFrom('{"retention": ');

      await expect(loading).rejects.toThrow(/\(root\): not valid JSON/);
    });

    it('refuses a missing file, naming it', async () => {
      const { path } = await folder();

      const loading = FileConfigProvider.load({ path, configuration: SERVICE_CONFIGURATION });

      await expect(loading).rejects.toBeInstanceOf(ConfigUnavailableError);
      await expect(loading).rejects.toThrow(`Could not read configuration from ${path}: ENOENT`);
    });
  });
});

describe('Function: localConfigProvider', () => {
  it('uses the defaults, unchanging, when no file is named', async () => {
    // Act
    const provider = await localConfigProvider(undefined, { configuration: SERVICE_CONFIGURATION });

    // Assess
    expect(provider).toBeInstanceOf(StaticConfigProvider);
    expect(provider.current()).toEqual(DEFAULT_CONFIG);
  });

  it('reads the named file', async () => {
    const created = await configFolder();
    try {
      await created.write('{"retention": {"noteHorizonDays": 30}}');

      const provider = await localConfigProvider(created.path, { configuration: SERVICE_CONFIGURATION });

      expect(provider).toBeInstanceOf(FileConfigProvider);
      expect(provider.current().retention).toEqual({ noteHorizonDays: 30, idempotencyKeyHours: 24 });
    } finally {
      await created.close();
    }
  });
});
