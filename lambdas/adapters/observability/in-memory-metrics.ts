import type { MetricName, Metrics } from '../../kernel/observability/metrics.port.ts';

/** Counters kept in process: what local mode and the tests read back. */
export class InMemoryMetrics implements Metrics {
  readonly counts = new Map<string, number>();
  storageRequests = 0;
  capacityUnits = 0;
  keyOperations = 0;

  count(name: MetricName, value = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + value);
  }

  storageRequest(request: { operation: string; capacityUnits: number }): void {
    this.storageRequests += 1;
    this.capacityUnits += request.capacityUnits;
  }

  keyOperation(): void {
    this.keyOperations += 1;
  }

  countOf(name: MetricName): number {
    return this.counts.get(name) ?? 0;
  }
}
