import { AsyncLocalStorage } from 'node:async_hooks';
import { InMemoryMetrics } from '../adapters/observability/in-memory-metrics.ts';
import type { MetricName, Metrics } from '../kernel/observability/metrics.port.ts';

export interface OperationCost {
  requests: number;
  storageRequests: number;
  readCapacityUnits: number;
  writeCapacityUnits: number;
  keyOperations: number;
  handlerMilliseconds: number[];
}

const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/**
 * Attributes the storage requests, capacity units and key operations of each HTTP request to its
 * operation, so a benchmark can price an operation from what it really cost. Local mode only.
 */
export class RequestCostMeter implements Metrics {
  readonly totals = new InMemoryMetrics();
  readonly #current = new AsyncLocalStorage<OperationCost>();
  readonly #byOperation = new Map<string, OperationCost>();

  /** Runs one request with its costs booked to `operationId`. */
  async measure<T>(operationId: string, run: () => Promise<T>): Promise<T> {
    let cost = this.#byOperation.get(operationId);
    if (!cost) {
      cost = {
        requests: 0,
        storageRequests: 0,
        readCapacityUnits: 0,
        writeCapacityUnits: 0,
        keyOperations: 0,
        handlerMilliseconds: [],
      };
      this.#byOperation.set(operationId, cost);
    }
    cost.requests += 1;
    const started = performance.now();
    try {
      return await this.#current.run(cost, run);
    } finally {
      cost.handlerMilliseconds.push(performance.now() - started);
    }
  }

  count(name: MetricName, value = 1): void {
    this.totals.count(name, value);
  }

  storageRequest(request: { operation: string; capacityUnits: number }): void {
    this.totals.storageRequest(request);
    const cost = this.#current.getStore();
    if (cost) {
      cost.storageRequests += 1;
      if (WRITE_OPERATIONS.has(request.operation)) cost.writeCapacityUnits += request.capacityUnits;
      else cost.readCapacityUnits += request.capacityUnits;
    }
  }

  keyOperation(): void {
    this.totals.keyOperation();
    const cost = this.#current.getStore();
    if (cost) cost.keyOperations += 1;
  }

  report(): Record<string, OperationCost> {
    return Object.fromEntries(this.#byOperation);
  }
}
