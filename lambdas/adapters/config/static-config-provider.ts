import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import type { ConfigDocument } from '../../kernel/config/config-section.ts';

/** A configuration that never changes: the defaults of a composed configuration, or a value a test chose. */
export class StaticConfigProvider<Document extends ConfigDocument = ConfigDocument>
  implements ConfigProvider<Document>
{
  readonly #config: Document;

  constructor(config: Document) {
    this.#config = config;
  }

  current(): Document {
    return this.#config;
  }

  async refresh(): Promise<void> {}
}
