/**
 * dynalite 4.0.0 streams every Query and Scan from an abstract-level iterator and, when the stream ends or a
 * limit cuts it short, closes the iterator by calling `iterator.return()` — a method abstract-level 3's
 * iterators do not have (they have `close()`). So no iterator was ever closed: each stayed attached to the
 * database as an open resource, holding the snapshot of the in-memory tree it was opened on, and with writes
 * in between every such snapshot kept its own old nodes alive. Under the 120/s mix the engine's heap grew by
 * ~0.5 MB/s, and its ever longer mark-compacts (every ~3 s) stalled every storage request a little more.
 *
 * Giving the iterators the `return` dynalite calls, as `close`, lets them go once their stream is done.
 */
import { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } from 'abstract-level';

interface Returnable {
  return?: () => Promise<{ done: true; value: undefined }>;
  close(): Promise<void>;
}

export const closeLevelIteratorsOnReturn = (): void => {
  for (const type of [AbstractIterator, AbstractKeyIterator, AbstractValueIterator]) {
    const prototype = type.prototype as unknown as Returnable;
    if (Object.hasOwn(prototype, 'return')) continue;
    Object.defineProperty(prototype, 'return', {
      configurable: true,
      writable: true,
      value: async function (this: Returnable) {
        await this.close();
        return { done: true, value: undefined };
      },
    });
  }
};
