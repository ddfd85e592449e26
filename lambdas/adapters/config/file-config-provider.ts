import { readFile, stat } from 'node:fs/promises';
import type { Configuration } from '../../kernel/config/compose-config.ts';
import { ConfigUnavailableError } from '../../kernel/config/config.errors.ts';
import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import type { ConfigDocument } from '../../kernel/config/config-section.ts';
import type { Log } from '../../kernel/observability/log.port.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { PolledConfigProvider, type SourceValue } from './polled-config-provider.ts';
import { StaticConfigProvider } from './static-config-provider.ts';

export interface FileConfigProviderOptions<Document extends ConfigDocument> {
  /** The JSON configuration file. */
  readonly path: string;
  /** What the file's document is checked with: the configuration of the modules this process runs. */
  readonly configuration: Configuration<Document>;
  /** How often, at most, the file's modification time is checked. */
  readonly checkIntervalMs?: number;
  readonly clock?: Clock;
  readonly metrics?: Metrics;
  /** Told of a rejected or unreadable new value; JSON lines on stderr by default. */
  readonly log?: Log;
}

export const DEFAULT_FILE_CHECK_INTERVAL_MS = 1000;

/**
 * Local mode's stand-in for the SSM parameter: a JSON file, read at start (an invalid file refuses start,
 * naming each wrong field) and read again when its modification time, size or inode changes, so an edit
 * — even an editor's save-by-rename — takes effect without a restart.
 */
export class FileConfigProvider<Document extends ConfigDocument> extends PolledConfigProvider<Document> {
  private constructor(options: FileConfigProviderOptions<Document>) {
    super({
      source: options.path,
      configuration: options.configuration,
      ttlMs: options.checkIntervalMs ?? DEFAULT_FILE_CHECK_INTERVAL_MS,
      clock: options.clock,
      metrics: options.metrics,
      log: options.log,
    });
  }

  static load<Document extends ConfigDocument>(
    options: FileConfigProviderOptions<Document>,
  ): Promise<FileConfigProvider<Document>> {
    return new FileConfigProvider(options).start();
  }

  protected async readSource(known: string | undefined): Promise<SourceValue | undefined> {
    try {
      const stats = await stat(this.source, { bigint: true });
      const revision = `${stats.ino}:${stats.size}:${stats.mtimeNs}`;
      if (revision === known) return undefined;
      return { revision, text: await readFile(this.source, 'utf8') };
    } catch (error) {
      throw new ConfigUnavailableError(this.source, (error as NodeJS.ErrnoException).code ?? 'unreadable', {
        cause: error,
      });
    }
  }
}

/** `$MEMORY_HUB_CONFIG` as the caller read it: the file's configuration, or the defaults when none is named. */
export const localConfigProvider = async <Document extends ConfigDocument>(
  path: string | undefined,
  options: Omit<FileConfigProviderOptions<Document>, 'path'>,
): Promise<ConfigProvider<Document>> =>
  path ? FileConfigProvider.load({ ...options, path }) : new StaticConfigProvider(options.configuration.defaults);
