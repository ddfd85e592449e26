import type { OutboxEntry } from '../kernel/events/outbox.port.ts';
import type { OutboxRelay } from '../kernel/events/outbox-relay.ts';

const SWEEP_MINIMUM_AGE_MS = 2000;

/**
 * Local mode's outbox relay: what the table stream and the one-minute sweep do in AWS. The store offers
 * each committed outbox entry (as the stream would deliver it) and the loop relays it right after; a slow
 * timer sweeps whatever is still marked (a commit made while the bus was down, say). Runs never overlap;
 * entries offered during a run go out in the next.
 */
export class LocalRelayLoop {
  readonly #relay: OutboxRelay;
  readonly #measure: <T>(run: () => Promise<T>, entry?: OutboxEntry) => Promise<T>;
  readonly #timer: NodeJS.Timeout;
  readonly #offered: OutboxEntry[] = [];
  #running: Promise<void> | undefined;
  #sweepDue = false;
  #stopped = false;

  constructor(options: {
    relay: OutboxRelay;
    sweepIntervalMs?: number;
    /**
     * Wraps the relay's own work (in AWS: the relay's and the consumers' invocations) for each offered entry, and
     * each sweep (no entry), to book it apart from requests, event by event, and let it give way to them.
     */
    measure?: <T>(run: () => Promise<T>, entry?: OutboxEntry) => Promise<T>;
  }) {
    this.#relay = options.relay;
    this.#measure = options.measure ?? ((run) => run());
    this.#timer = setInterval(() => {
      this.#sweepDue = true;
      this.#kick();
    }, options.sweepIntervalMs ?? 1000);
    this.#timer.unref();
  }

  /** A committed entry, as the table stream would hand it to the relay. */
  offer(entry: OutboxEntry): void {
    this.#offered.push(entry);
    this.#kick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.idle();
  }

  /** Resolves once nothing is being relayed and nothing offered is waiting (tests). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #kick(): void {
    if (this.#stopped || this.#running) return;
    this.#running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#drain())
      .finally(() => {
        this.#running = undefined;
        if (this.#offered.length > 0 && !this.#stopped) this.#kick();
      });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#offered.length > 0) {
        // Side by side, each entry on its own: what one event cost is measured apart, and one that fails to go
        // out does not hold back the others (it stays marked; the next sweep publishes it).
        const entries = this.#offered.splice(0);
        await Promise.allSettled(entries.map((entry) => this.#measure(() => this.#relay.relay([entry]), entry)));
      }
      if (this.#sweepDue) {
        this.#sweepDue = false;
        // Only what the stream path has had time to relay: younger entries may be in flight right now.
        await this.#measure(() => this.#relay.sweep({ minimumAgeMs: SWEEP_MINIMUM_AGE_MS }));
      }
    } catch {
      // Whatever did not go out stays marked in the outbox; the next sweep publishes it.
    }
  }
}
