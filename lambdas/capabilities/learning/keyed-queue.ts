/**
 * Runs tasks that share a key one after another, in arrival order; tasks with different keys run side by
 * side. The merge uses it per belief: observations of one rule that reach the same process wait their turn
 * instead of racing for the same revision, so the optimistic retries only ever meet writers in other
 * processes (other Lambda execution environments). A key's entry is dropped once its queue drains.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    // The next task runs whether the previous one succeeded or not: a failure is its caller's, not the queue's.
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with queued or running tasks; for tests. */
  get size(): number {
    return this.#tails.size;
  }
}
