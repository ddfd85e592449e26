import type { OutboxRelay } from '../core/events/outbox-relay.ts';

/**
 * Local mode's outbox relay: what the table stream and the one-minute sweep do in AWS. A write pokes it so
 * events reach the consumers right after their commit; a slow timer catches whatever a poke missed (a
 * write that committed while the bus was down, say). Runs are never concurrent; pokes during a run
 * coalesce into one more run.
 */
export class LocalRelayLoop {
  readonly #relay: OutboxRelay;
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(options: { relay: OutboxRelay; intervalMs?: number }) {
    this.#relay = options.relay;
    this.#timer = setInterval(() => this.poke(), options.intervalMs ?? 1000);
    this.#timer.unref();
  }

  poke(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  /** Resolves once no relay run is in progress or pending (tests). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#relay.sweep();
      } catch {
        // The next poke or tick tries again; the events stay marked in the outbox meanwhile.
      }
    } while (this.#again && !this.#stopped);
  }
}
