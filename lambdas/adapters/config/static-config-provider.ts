import type { ConfigProvider } from '../../core/config/config-provider.port.ts';
import { DEFAULT_CONFIG, type MemoryHubConfig } from '../../core/config/memory-hub-config.ts';

/** A configuration that never changes: the defaults, or a value a test chose. */
export class StaticConfigProvider implements ConfigProvider {
  readonly #config: MemoryHubConfig;

  constructor(config: MemoryHubConfig = DEFAULT_CONFIG) {
    this.#config = config;
  }

  current(): MemoryHubConfig {
    return this.#config;
  }

  async refresh(): Promise<void> {}
}
