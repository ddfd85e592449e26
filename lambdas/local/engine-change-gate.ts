/**
 * Admits the embedded engine's changes so that the order it answers them in — the order the journal records
 * them in — is the order it applied them in.
 *
 * Single-item writes (PutItem, UpdateItem, DeleteItem) run side by side: dynalite locks the item, applies the
 * write and answers it before the next write of that item starts. A change spanning items or tables does not
 * have that property — BatchWriteItem applies its items one by one and answers after the last, so a write
 * to one of them could be applied and answered in between; a put could pass its table check before a
 * DeleteTable and be answered after it — so such a change waits for every change in flight and runs alone.
 * Reads are not gated. Admission is first come, first served: a waiting exclusive change holds back later
 * single-item writes, so it is never starved.
 */
export class ChangeGate {
  #itemsInFlight = 0;
  #exclusiveInFlight = false;
  readonly #waiting: { exclusive: boolean; admit: () => void }[] = [];

  /** Resolves when the change may run; call `leave` with the same kind once it has been answered. */
  enter(exclusive: boolean): Promise<void> {
    if (this.#waiting.length === 0 && this.#mayRun(exclusive)) {
      this.#start(exclusive);
      return Promise.resolve();
    }
    return new Promise((admit) => this.#waiting.push({ exclusive, admit }));
  }

  leave(exclusive: boolean): void {
    if (exclusive) this.#exclusiveInFlight = false;
    else this.#itemsInFlight -= 1;
    while (this.#waiting.length > 0 && this.#mayRun(this.#waiting[0]?.exclusive ?? false)) {
      const next = this.#waiting.shift();
      if (!next) break;
      this.#start(next.exclusive);
      next.admit();
    }
  }

  /** Runs `work` alone: after every change in flight, before any that comes later. */
  async exclusively<T>(work: () => Promise<T>): Promise<T> {
    await this.enter(true);
    try {
      return await work();
    } finally {
      this.leave(true);
    }
  }

  #mayRun(exclusive: boolean): boolean {
    return !this.#exclusiveInFlight && (!exclusive || this.#itemsInFlight === 0);
  }

  #start(exclusive: boolean): void {
    if (exclusive) this.#exclusiveInFlight = true;
    else this.#itemsInFlight += 1;
  }
}
