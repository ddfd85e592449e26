import { GetParameterCommand, type GetParameterCommandOutput } from '@aws-sdk/client-ssm';
import type { Configuration } from '../../kernel/config/compose-config.ts';
import { ConfigUnavailableError } from '../../kernel/config/config.errors.ts';
import type { ConfigDocument } from '../../kernel/config/config-section.ts';
import type { Log } from '../../kernel/observability/log.port.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { PolledConfigProvider, type SourceValue } from './polled-config-provider.ts';

/** The part of `SSMClient` this adapter uses; tests pass a fake. */
export interface SsmParameterClient {
  send(command: GetParameterCommand): Promise<GetParameterCommandOutput>;
}

export interface SsmConfigProviderOptions<Document extends ConfigDocument> {
  /** The parameter holding the JSON document, `/memory-hub/{stage}/config`. */
  readonly parameterName: string;
  /** What the parameter's document is checked with: the configuration of the modules this function runs. */
  readonly configuration: Configuration<Document>;
  readonly client: SsmParameterClient;
  /** How long a value is used before the parameter is read again. */
  readonly ttlMs?: number;
  readonly clock?: Clock;
  readonly metrics?: Metrics;
  /** Told of a rejected or unreadable new value; JSON lines on stderr by default. */
  readonly log?: Log;
}

export const DEFAULT_SSM_TTL_MS = 30_000;

/**
 * AWS mode: the configuration is one SSM String parameter holding a JSON document. Read at init (a missing,
 * unreadable or invalid parameter fails the init), then at most once per TTL per execution environment.
 */
export class SsmConfigProvider<Document extends ConfigDocument> extends PolledConfigProvider<Document> {
  readonly #client: SsmParameterClient;

  private constructor(options: SsmConfigProviderOptions<Document>) {
    super({
      source: options.parameterName,
      configuration: options.configuration,
      ttlMs: options.ttlMs ?? DEFAULT_SSM_TTL_MS,
      clock: options.clock,
      metrics: options.metrics,
      log: options.log,
    });
    this.#client = options.client;
  }

  static load<Document extends ConfigDocument>(
    options: SsmConfigProviderOptions<Document>,
  ): Promise<SsmConfigProvider<Document>> {
    return new SsmConfigProvider(options).start();
  }

  /** The value itself is the revision: a few KB compared in memory is cheaper than parsing it again. */
  protected async readSource(known: string | undefined): Promise<SourceValue | undefined> {
    let output: GetParameterCommandOutput;
    try {
      output = await this.#client.send(new GetParameterCommand({ Name: this.source }));
    } catch (error) {
      throw new ConfigUnavailableError(this.source, (error as Error).name || 'unreadable', { cause: error });
    }
    const text = output.Parameter?.Value;
    if (text === undefined) throw new ConfigUnavailableError(this.source, 'no value');
    return text === known ? undefined : { revision: text, text };
  }
}
