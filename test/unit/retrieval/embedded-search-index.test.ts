import { InMemorySearchIndexStore } from '../../../lambdas/adapters/memory/in-memory-search-index-store.ts';
import { describeSearchIndexContract, embeddedIndexFixture } from '../../contract/search-index.contract.ts';

describeSearchIndexContract('embedded, over the in-memory store', async () =>
  embeddedIndexFixture(new InMemorySearchIndexStore(), async () => {}),
);
