import type { ConfigDocument } from './config-section.ts';

/**
 * Where the running service gets its configuration. The first value is loaded (and validated, failing
 * fast) before the provider is handed out; afterwards the source may change underneath and the provider
 * picks the change up on `refresh()`. A value that fails validation never replaces the last good one.
 * Settings are read through their section (`section.of(config.current(), agent)`).
 */
export interface ConfigProvider<Document extends ConfigDocument = ConfigDocument> {
  /** The last good configuration. Synchronous and cheap: call it wherever a setting is read. */
  current(): Document;
  /**
   * Looks at the source again when the last look is older than the provider's time-to-live, and is
   * a no-op otherwise. Never rejects: a value that cannot be read or is invalid is reported and skipped.
   */
  refresh(): Promise<void>;
}
