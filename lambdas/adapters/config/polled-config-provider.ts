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
  /**
   * A look still unanswered after this long no longer holds up the next one (a connection that hangs must not
   * stop every later refresh); what it finds is still taken if it ever answers. Never, by default.
   */
  readonly abandonLookAfterMs?: number | undefined;
  readonly clock?: Clock | undefined;
  readonly metrics?: Metrics | undefined;
  /**
   * Told once per rejected or unreadable value, naming fields and reasons, never values. JSON lines on stderr
   * by default; the function's logger in AWS.
   */
  readonly log?: Log | undefined;
}

/** What one look at the source found. */
export type LookOutcome =
  /** A new valid value is now in force. */
  | 'applied'
  /** The source holds the value already in force. */
  | 'unchanged'
  /** The source holds an invalid value; the last good one stays in force. */
  | 'rejected'
  /** The source could not be read; the last good value stays in force. */
  | 'unreadable'
  /** The last look is younger than the time-to-live: the source was not looked at. */
  | 'not-due';

/**
 * A configuration source polled with a time-to-live: a changed value replaces the current one only when it
 * is valid. An invalid or unreadable value is counted (`config.invalid_rejected`, `config.refresh_failed`) and
 * logged once, and the last good value stays in force. The first value is either read at start, failing fast
 * (`start`: the local file), or the one deployed with the code, looked at on the first `refresh` (`startFrom`:
 * the SSM parameter, so that no call is made at init). Adapters implement `readSource`.
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
  #looking: Promise<LookOutcome> | undefined;
  #lookStartedAt = Number.NEGATIVE_INFINITY;
  /** The reason of the read failure last reported, until a read succeeds again. */
  #unreadable: string | undefined;

  protected constructor(options: PolledConfigProviderOptions<Document>) {
    this.source = options.source;
    this.#options = {
      configuration: options.configuration,
      ttlMs: options.ttlMs,
      abandonLookAfterMs: options.abandonLookAfterMs ?? Number.POSITIVE_INFINITY,
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

  /** Starts on `config` without reading the source; the first `refresh` looks at it. */
  protected startFrom(config: Document): this {
    this.#config = config;
    return this;
  }

  current(): Document {
    if (!this.#config) throw new Error(`The configuration from ${this.source} was used before it was loaded`);
    return this.#config;
  }

  async refresh(): Promise<void> {
    await this.lookIfDue();
  }

  /** Resolves once no look is in flight: what a test, or a caller that must see the latest value, waits for. */
  async settled(): Promise<void> {
    await this.#looking;
  }

  /** Looks at the source when the last look is older than the time-to-live, sharing a look in flight. */
  protected lookIfDue(): Promise<LookOutcome> {
    const now = this.#now();
    if (this.#looking && now - this.#lookStartedAt < this.#options.abandonLookAfterMs) return this.#looking;
    if (!this.#looking && now - this.#checkedAt < this.#options.ttlMs) return Promise.resolve('not-due');
    this.#checkedAt = now;
    this.#lookStartedAt = now;
    const looking = this.#look().finally(() => {
      if (this.#looking === looking) this.#looking = undefined;
    });
    this.#looking = looking;
    return looking;
  }

  async #look(): Promise<LookOutcome> {
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
      return 'unreadable';
    }
    this.#unreadable = undefined;
    if (!value) return 'unchanged';
    this.#revision = value.revision;
    try {
      this.#config = this.#options.configuration.parseDocument(value.text, this.source);
      return 'applied';
    } catch (error) {
      const fields = error instanceof InvalidConfigError ? error.problems.map((problem) => problem.path) : [];
      this.#options.metrics.count('config.invalid_rejected');
      this.#warn('configuration rejected; keeping the last good value', { fields });
      return 'rejected';
    }
  }

  #warn(message: string, details: LogFields): void {
    this.#options.log.warn(message, { source: this.source, ...details });
  }

  #now(): number {
    return this.#options.clock.now().getTime();
  }
}
