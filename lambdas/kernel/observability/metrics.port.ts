/**
 * Opaque counters and measurements. Names and dimensions are fixed strings chosen in code: never a
 * namespace, a principal, a record id or any content.
 */
export interface Metrics {
  count(name: MetricName, value?: number): void;
  /** One request to the storage engine and the capacity units it consumed. */
  storageRequest(request: { operation: string; capacityUnits: number }): void;
  /** One use of the key service (a data key generated or decrypted). */
  keyOperation(operation: 'generate-data-key' | 'decrypt-data-key'): void;
}

export type MetricName =
  /** An item came back from storage outside the namespace that was asked for and was refused. */
  | 'scope.violation_refused'
  /** A ciphertext did not decrypt under the expected encryption context and was refused. */
  | 'crypto.context_mismatch_refused'
  /** A revision committed but its head projection could not be moved at once; the relay catches up. */
  | 'projection.deferred'
  | 'relay.published'
  | 'relay.publish_failed'
  | 'consumer.dead_lettered'
  /** A changed configuration value failed validation; the last good value stays in force. */
  | 'config.invalid_rejected'
  /** The configuration source could not be read on a refresh; the last good value stays in force. */
  | 'config.refresh_failed'
  | 'http.server_error';

export const noMetrics: Metrics = {
  count: () => undefined,
  storageRequest: () => undefined,
  keyOperation: () => undefined,
};
