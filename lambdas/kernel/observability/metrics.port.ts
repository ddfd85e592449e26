/**
 * Opaque counters and measurements. Names and dimensions are fixed strings chosen in code: never a
 * namespace, a principal, a record id or any content.
 */
export interface Metrics {
  count(name: MetricName, value?: number): void;
  /** One request to the storage engine and the capacity units it consumed. */
  storageRequest(request: { operation: string; capacityUnits: number }): void;
  /** One call to the key service (KMS): a key generated, decrypted or re-encrypted. */
  keyOperation(operation: 'generate-data-key' | 'decrypt-data-key' | 're-encrypt-data-key'): void;
}

export type MetricName =
  /** An item came back from storage outside the namespace that was asked for and was refused. */
  | 'scope.violation_refused'
  /** A ciphertext did not decrypt under the expected encryption context and was refused. */
  | 'crypto.context_mismatch_refused'
  /** A revision committed but its head projection could not be moved at once; the relay catches up. */
  | 'projection.deferred'
  /** A consumer the relay runs itself (the head projection) failed on an event; the reconciler repairs it. */
  | 'relay.inline_consumer_failed'
  | 'relay.published'
  | 'relay.publish_failed'
  | 'consumer.dead_lettered'
  /** A changed configuration value failed validation; the last good value stays in force. */
  | 'config.invalid_rejected'
  /** The configuration source could not be read on a refresh; the last good value stays in force. */
  | 'config.refresh_failed'
  /**
   * The first request of an execution environment went ahead on the configuration deployed with the function:
   * the operator's overrides could not be read in time (throttled, timed out, failed) or were invalid.
   */
  | 'config.first_read_fallback'
  | 'http.server_error'
  /** A request was refused because its app client is over its bound (`throttle` in the configuration). */
  | 'http.client_throttled'
  /** A search hit whose index entry no longer matched the canonical record (gone, revised, out of scope): dropped. */
  | 'search.stale_dropped'
  /** The search index could not answer; the search scanned the namespace instead, and said so. */
  | 'search.index_unavailable'
  /** A namespace's search index was loaded into this process (cold, or after a gap in its log). */
  | 'search.index_loaded'
  /** A snapshot of a namespace's search index was written (compaction or rebuild). */
  | 'search.index_compacted';

export const noMetrics: Metrics = {
  count: () => undefined,
  storageRequest: () => undefined,
  keyOperation: () => undefined,
};
