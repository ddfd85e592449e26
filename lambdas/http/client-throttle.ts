import { DomainError, ServiceUnavailableError } from '../kernel/errors/domain-error.ts';
import type { ClientQuotaLedger } from '../kernel/quota/client-quota-ledger.port.ts';
import type { Clock } from '../kernel/time/clock.ts';

/** The quota's windows: fixed, one second long, aligned to the epoch, the same in every environment. */
export const QUOTA_WINDOW_MS = 1000;

/** An app client's bound, as the configuration's `throttle` section gives it for one request. */
export interface ClientBound {
  /** Requests the client may make in one window, across every execution environment. */
  readonly requestsPerSecond: number;
  /** The most tokens this environment leases from the ledger at once. */
  readonly leaseSize: number;
}

/** The caller's app client is over its bound; nothing was done, and it may retry after `retryAfterSeconds`. */
export class ClientThrottledError extends DomainError {
  readonly code = 'request.throttled';
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('Too many requests from this app client; retry after the number of seconds in Retry-After');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What this environment holds of one client's current window. */
interface ClientWindow {
  /** Start (epoch ms) of the window the tokens belong to. */
  start: number;
  /** Tokens leased for this window and not spent yet: spent here without a round trip. */
  tokens: number;
  /**
   * The bound under which the ledger granted less than asked (0 while it has not): once `tokens` are spent,
   * refuse until the window ends without asking again, unless an operator has raised the bound since.
   */
  spentUnder: number;
  /** Size of this window's last lease (0 before the first); each next lease in the window doubles it. */
  lastLease: number;
  /** Requests met in this window and in the one before it: the first lease of a window is what the last one met. */
  demand: number;
  previousDemand: number;
  /** The lease being asked for; the client's other requests wait for it rather than asking too. */
  leasing: Promise<void> | undefined;
}

/** More app clients than a user pool plausibly holds; past it, clients of past windows are forgotten. */
const DEFAULT_MAX_CLIENTS = 10_000;

/**
 * Windows one request may see end while it waits for a lease before it gives up: a lease that comes back after
 * its window is of no use, and a ledger slower than a window would otherwise hold a request until it times out.
 */
const MAX_WINDOWS_WAITED_OUT = 3;

/**
 * Holds each app client to its bound across every execution environment: requests spend tokens this environment
 * leased from the shared ledger for the client's current one-second window, and a new lease is asked for only
 * when they run out. The ledger never hands out more than the bound per window, so a window admits at most the
 * bound however many environments serve the client; tokens not spent when the window ends are dropped (the
 * under-admission, bounded by sizing each lease on what the environment met a window before). README,
 * "Per-client throttling".
 */
export class ClientThrottle {
  readonly #clock: Clock;
  readonly #ledger: ClientQuotaLedger;
  readonly #maxClients: number;
  readonly #clients = new Map<string, ClientWindow>();

  constructor(options: { readonly clock: Clock; readonly ledger: ClientQuotaLedger; readonly maxClients?: number }) {
    this.#clock = options.clock;
    this.#ledger = options.ledger;
    this.#maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
  }

  /** How many clients this environment keeps a window for. */
  get size(): number {
    return this.#clients.size;
  }

  /**
   * Takes one request of `client`'s current window: 0 when admitted, otherwise the whole seconds (at least 1)
   * until the window ends. Fails as the ledger fails (storage unavailable is a 503, never an admission), and
   * as unavailable when leases keep coming back after their window ended.
   */
  async take(client: string, bound: ClientBound): Promise<number> {
    let now = this.#clock.now().getTime();
    const window = this.#windowOf(client, now);
    this.#roll(window, now);
    window.demand += 1;
    let windowsWaitedOut = 0;
    for (;;) {
      if (window.tokens > 0) {
        window.tokens -= 1;
        return 0;
      }
      if (bound.requestsPerSecond <= window.spentUnder)
        return Math.max(1, Math.ceil((window.start + QUOTA_WINDOW_MS - now) / 1000));
      if (windowsWaitedOut === MAX_WINDOWS_WAITED_OUT)
        throw new ServiceUnavailableError('The client quota could not be leased in time');
      const waitedIn = window.start;
      window.leasing ??= this.#lease(client, window, bound).finally(() => {
        window.leasing = undefined;
      });
      await window.leasing;
      // A window may have ended while the lease was asked for: this request then competes in the next one.
      now = this.#clock.now().getTime();
      this.#roll(window, now);
      if (window.start !== waitedIn) windowsWaitedOut += 1;
    }
  }

  async #lease(client: string, window: ClientWindow, bound: ClientBound): Promise<void> {
    const start = window.start;
    // Slow start: as much as the environment met in the window before, then twice the last lease.
    const wanted = Math.min(
      bound.leaseSize,
      bound.requestsPerSecond,
      window.lastLease === 0 ? Math.max(1, window.previousDemand) : 2 * window.lastLease,
    );
    const granted = await this.#ledger.lease({
      client,
      window: { start, end: start + QUOTA_WINDOW_MS },
      tokens: wanted,
      limit: bound.requestsPerSecond,
    });
    // The window ended while the ledger answered: its tokens count for a window that is over.
    if (window.start !== start) return;
    window.lastLease = wanted;
    window.tokens += granted;
    if (granted < wanted) window.spentUnder = bound.requestsPerSecond;
  }

  #windowOf(client: string, now: number): ClientWindow {
    const known = this.#clients.get(client);
    if (known) return known;
    if (this.#clients.size >= this.#maxClients) this.#forget(now);
    const window: ClientWindow = {
      start: windowStartOf(now),
      tokens: 0,
      spentUnder: 0,
      lastLease: 0,
      demand: 0,
      previousDemand: 0,
      leasing: undefined,
    };
    this.#clients.set(client, window);
    return window;
  }

  /** Moves a client's window on to the one `now` falls in; the old window's unspent tokens are dropped. */
  #roll(window: ClientWindow, now: number): void {
    const start = windowStartOf(now);
    if (start <= window.start) return;
    window.previousDemand = start - window.start === QUOTA_WINDOW_MS ? window.demand : 0;
    window.start = start;
    window.tokens = 0;
    window.spentUnder = 0;
    window.lastLease = 0;
    window.demand = 0;
  }

  /**
   * Makes room: first the clients not seen in this window or the last (all they hold is a sizing hint), then,
   * should every client be current, the longest-known ones not waiting on a lease. Forgetting drops unspent
   * tokens, so a client is only ever admitted less for it, never more.
   */
  #forget(now: number): void {
    const recent = windowStartOf(now) - QUOTA_WINDOW_MS;
    for (const [client, window] of this.#clients)
      if (window.start < recent && !window.leasing) this.#clients.delete(client);
    for (const [client, window] of this.#clients) {
      if (this.#clients.size < this.#maxClients) break;
      if (!window.leasing) this.#clients.delete(client);
    }
  }
}

/** The start of the window `epochMilliseconds` falls in. */
export const windowStartOf = (epochMilliseconds: number): number =>
  epochMilliseconds - (((epochMilliseconds % QUOTA_WINDOW_MS) + QUOTA_WINDOW_MS) % QUOTA_WINDOW_MS);

/** For a function serving unauthenticated operations only, which have no app client: any lease is a wiring mistake. */
export const NO_CLIENT_QUOTA_LEDGER: ClientQuotaLedger = {
  lease: async () => {
    throw new Error('This function serves no authenticated operation and has no client quota ledger');
  },
};
