import type { Configuration } from '../../kernel/config/compose-config.ts';
import { ConfigUnavailableError } from '../../kernel/config/config.errors.ts';
import type { ConfigDocument } from '../../kernel/config/config-section.ts';
import type { Log } from '../../kernel/observability/log.port.ts';
import { type Metrics, noMetrics } from '../../kernel/observability/metrics.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { overridesIn } from './config-parameter.ts';
import { ParameterReadError, type ParameterReader } from './parameter-reader.ts';
import { PolledConfigProvider, type SourceValue } from './polled-config-provider.ts';

export interface SsmConfigProviderOptions<Document extends ConfigDocument> {
  /** The parameter holding the operator's overrides, `/memory-hub/{stage}/config`. */
  readonly parameterName: string;
  /**
   * The configuration of the modules this function runs: its defaults are the configuration deployed with the
   * function, in force until the parameter is read, and what the parameter's overrides are merged over.
   */
  readonly configuration: Configuration<Document>;
  /** The Parameters and Secrets extension in AWS (`ParametersExtensionClient`); tests pass a fake. */
  readonly client: ParameterReader;
  /**
   * How long a value is used before the parameter is read again. The extension's own cache is off
   * (`lib/constructs/service-function.ts`), so this is the only one: an operator's change is in force in every
   * execution environment at most a TTL and one read after it is made.
   */
  readonly ttlMs?: number;
  /** How long the first request of an execution environment waits for its read before going ahead on the defaults. */
  readonly readTimeoutMs?: number;
  readonly clock?: Clock;
  readonly metrics?: Metrics;
  /** Told of a rejected or unreadable value; JSON lines on stderr by default. */
  readonly log?: Log;
}

export const DEFAULT_SSM_TTL_MS = 30_000;
/** Well above SSM's usual answer through the extension (tens of ms); well below a request's budget. */
export const DEFAULT_SSM_READ_TIMEOUT_MS = 500;

/**
 * AWS mode: the configuration is the defaults deployed with the function, deep-merged with the operator's
 * overrides from one SSM String parameter (a JSON document; parsing it fills every setting it leaves out with
 * its default, so the parse is the merge). Nothing is read at init (the extension would not answer then anyway),
 * so a burst of cold starts cannot be throttled by SSM into failing. The first request of an execution environment
 * waits for one read (at most `readTimeoutMs`) and goes ahead on the deployed defaults when SSM or the extension
 * throttles, times out or fails, or the parameter holds an invalid document (`config.first_read_fallback`); later
 * reads, at most once per TTL, run in the background and never make a request wait (one unanswered for a TTL no
 * longer holds up the next). The last good value always stays in force.
 */
export class SsmConfigProvider<Document extends ConfigDocument> extends PolledConfigProvider<Document> {
  readonly #client: ParameterReader;
  readonly #readTimeoutMs: number;
  readonly #metrics: Metrics;
  /** The first read, which requests wait for until it settles; afterwards requests never wait. */
  #firstRead: Promise<void> | undefined;
  #firstReadSettled = false;

  private constructor(options: SsmConfigProviderOptions<Document>) {
    super({
      source: options.parameterName,
      configuration: options.configuration,
      ttlMs: options.ttlMs ?? DEFAULT_SSM_TTL_MS,
      abandonLookAfterMs: options.ttlMs ?? DEFAULT_SSM_TTL_MS,
      clock: options.clock,
      metrics: options.metrics,
      log: options.log,
    });
    this.#client = options.client;
    this.#readTimeoutMs = options.readTimeoutMs ?? DEFAULT_SSM_READ_TIMEOUT_MS;
    this.#metrics = options.metrics ?? noMetrics;
  }

  /** A provider on the deployed defaults; it makes no call until the first `refresh`. */
  static create<Document extends ConfigDocument>(
    options: SsmConfigProviderOptions<Document>,
  ): SsmConfigProvider<Document> {
    return new SsmConfigProvider(options).startFrom(options.configuration.defaults);
  }

  override refresh(): Promise<void> {
    const look = this.lookIfDue();
    if (this.#firstRead) return this.#firstRead;
    this.#firstRead = look.then((outcome) => {
      this.#firstReadSettled = true;
      if (outcome === 'unreadable' || outcome === 'rejected') this.#metrics.count('config.first_read_fallback');
    });
    return this.#firstRead;
  }

  /**
   * The value itself is the revision: a few KB compared in memory is cheaper than parsing it again. Only the
   * first read, which a request waits for, is timed out: a background read may span a freeze of the execution
   * environment, after which any timer has expired, and a read that hangs is left behind by the next one.
   */
  protected async readSource(known: string | undefined): Promise<SourceValue | undefined> {
    const timeout = this.#firstReadSettled ? undefined : AbortSignal.timeout(this.#readTimeoutMs);
    let text: string;
    try {
      text = await this.#client.readParameter(this.source, timeout ? { signal: timeout } : {});
    } catch (error) {
      const reason = timeout?.aborted
        ? 'timeout'
        : error instanceof ParameterReadError
          ? error.reason
          : (error as Error).name || 'unreadable';
      throw new ConfigUnavailableError(this.source, reason, { cause: error });
    }
    return text === known ? undefined : { revision: text, text: overridesIn(text) };
  }
}
