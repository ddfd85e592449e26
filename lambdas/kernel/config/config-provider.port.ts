import type { ConfigDocument } from './config-section.ts';

/**
 * Where the running service gets its configuration. The provider starts on a valid value: the local file read
 * (and validated, failing fast) before the provider is handed out, or in AWS the defaults deployed with the
 * function, until the first `refresh()` reads the operator's overrides. Afterwards the source may change
 * underneath and the provider picks the change up on `refresh()`. A value that fails validation never replaces
 * the last good one. Settings are read through their section (`section.of(config.current(), agent)`).
 */
export interface ConfigProvider<Document extends ConfigDocument = ConfigDocument> {
  /** The last good configuration. Synchronous and cheap: call it wherever a setting is read. */
  current(): Document;
  /**
   * Looks at the source again when the last look is older than the provider's time-to-live, and is a no-op
   * otherwise; resolves when the caller may go ahead, which need not wait for the look (a provider may look
   * in the background). Never rejects: a value that cannot be read or is invalid is reported and skipped.
   */
  refresh(): Promise<void>;
}
