import { InMemoryIdempotencyStore } from '../../../lambdas/adapters/memory/in-memory-idempotency-store.ts';
import { describeIdempotencyStoreContract } from '../../contract/idempotency-store.contract.ts';

describeIdempotencyStoreContract('in-memory fake', async (clock) => ({
  store: new InMemoryIdempotencyStore({ clock }),
  close: async () => undefined,
}));
