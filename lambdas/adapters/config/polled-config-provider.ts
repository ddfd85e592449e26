import type { Configuration } from '../../kernel/config/compose-config.ts';
import { ConfigUnavailableError, InvalidConfigError } from '../../kernel/config/config.errors.ts';
import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import type { ConfigDocument } from '../../kernel/config/config-section.ts';
import type { Log, LogFields } from '../../kernel/observability/log.port.ts';
import { type Metrics, noMetrics } from '../../kernel/observability/metrics.port.ts';
import { type Clock, systemClock } from '../../kernel/time/clock.ts';
import { jsonLinesLog } from '../observability/json-lines-log.ts';

/** One value of a configuration source. */
export interface SourceValue {
  /** Identifies the value: the same revision means the same text, so it is not parsed again. */
  readonly revision: string;
  readonly text: string;
}

export interface PolledConfigProviderOptions<Document extends ConfigDocument> {
  /** Names the source in errors and warnings: a file path, a parameter name. */
  readonly source: string;
  /** The service's configuration, composed from the sections of the modules it runs: what a value is checked with. */
  readonly configuration: Pick<Configuration<Document>, 'parseDocument'>;
  /** The source is looked at again at most once per this many milliseconds. */
  readonly ttlMs: number;
  readonly clock?: Clock | undefined;
  readonly metrics?: Metrics | undefined;
  /**
   * Told once per rejected or unreadable value, naming fields and reasons, never values. JSON lines on stderr
   * by default; the function's logger in AWS.
   */
  readonly log?: Log | undefined;
}

/**
 * A configuration source that is loaded once at start, failing fast, and polled afterwards with a
 * time-to-live: a changed value replaces the current one only when it is valid. An invalid or unreadable
 * value is counted (`config.invalid_rejected`, `config.refresh_failed`) and logged once, and the last good
 * value stays in force. Adapters implement `readSource`; their static `load` calls `start`.
 */
export abstract class PolledConfigProvider<Document extends ConfigDocument> implements ConfigProvider<Document> {
  readonly source: string;
  readonly #options: {
    readonly [Option in Exclude<keyof PolledConfigProviderOptions<Document>, 'source'>]-?: Exclude<
      PolledConfigProviderOptions<Document>[Option],
      undefined
    >;
  };
  #config: Document | undefined;
  /** The revision last read, valid or not: a rejected value is reported once, not on every look. */
  #revision: string | undefined;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #looking: Promise<void> | undefined;
  /** The reason of the read failure last reported, until a read succeeds again. */
  #unreadable: string | undefined;

  protected constructor(options: PolledConfigProviderOptions<Document>) {
    this.source = options.source;
    this.#options = {
      configuration: options.configuration,
      ttlMs: options.ttlMs,
      clock: options.clock ?? systemClock,
      metrics: options.metrics ?? noMetrics,
      log: options.log ?? jsonLinesLog(),
    };
  }

  /**
   * The source's current value, or undefined when its revision is still `known`. Throws
   * `ConfigUnavailableError` when the source cannot be read.
   */
  protected abstract readSource(known: string | undefined): Promise<SourceValue | undefined>;

  /** Loads the first value; throws `InvalidConfigError` naming every wrong field, or `ConfigUnavailableError`. */
  protected async start(): Promise<this> {
    this.#checkedAt = this.#now();
    const value = await this.readSource(undefined);
    if (!value) throw new ConfigUnavailableError(this.source, 'no value');
    this.#config = this.#options.configuration.parseDocument(value.text, this.source);
    this.#revision = value.revision;
    return this;
  }

  current(): Document {
    if (!this.#config) throw new Error(`The configuration from ${this.source} was used before it was loaded`);
    return this.#config;
  }

  refresh(): Promise<void> {
    if (this.#looking) return this.#looking;
    if (this.#now() - this.#checkedAt < this.#options.ttlMs) return Promise.resolve();
    this.#checkedAt = this.#now();
    this.#looking = this.#look().finally(() => {
      this.#looking = undefined;
    });
    return this.#looking;
  }

  async #look(): Promise<void> {
    let value: SourceValue | undefined;
    try {
      value = await this.readSource(this.#revision);
    } catch (error) {
      const reason = error instanceof ConfigUnavailableError ? error.reason : 'unexpected error';
      if (reason !== this.#unreadable) {
        this.#unreadable = reason;
        this.#options.metrics.count('config.refresh_failed');
        this.#warn('configuration could not be read; keeping the last good value', { reason });
      }
      return;
    }
    this.#unreadable = undefined;
    if (!value) return;
    this.#revision = value.revision;
    try {
      this.#config = this.#options.configuration.parseDocument(value.text, this.source);
    } catch (error) {
      const fields = error instanceof InvalidConfigError ? error.problems.map((problem) => problem.path) : [];
      this.#options.metrics.count('config.invalid_rejected');
      this.#warn('configuration rejected; keeping the last good value', { fields });
    }
  }

  #warn(message: string, details: LogFields): void {
    this.#options.log.warn(message, { source: this.source, ...details });
  }

  #now(): number {
    return this.#options.clock.now().getTime();
  }
}
