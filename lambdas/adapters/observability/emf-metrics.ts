import type { MetricName, Metrics } from '../../kernel/observability/metrics.port.ts';

/**
 * CloudWatch metrics through the Embedded Metric Format: one JSON log line per measurement, with fixed
 * dimensions only (the stage), so no identifier or content can become a metric dimension.
 */
export class EmfMetrics implements Metrics {
  readonly #namespace: string;
  readonly #stage: string;

  constructor(options: { namespace: string; stage: string }) {
    this.#namespace = options.namespace;
    this.#stage = options.stage;
  }

  count(name: MetricName, value = 1): void {
    this.#emit(name, value, 'Count');
  }

  /** DynamoDB and KMS publish their own per-table and per-key metrics; a log line per call would only add cost. */
  storageRequest(): void {}

  keyOperation(): void {}

  #emit(name: string, value: number, unit: string): void {
    console.log(
      JSON.stringify({
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            { Namespace: this.#namespace, Dimensions: [['stage']], Metrics: [{ Name: name, Unit: unit }] },
          ],
        },
        stage: this.#stage,
        [name]: value,
      }),
    );
  }
}
