import {
  assertLeaseRequest,
  type ClientQuotaLedger,
  type QuotaLeaseRequest,
} from '../../kernel/quota/client-quota-ledger.port.ts';

/** How long a window's count is kept after it ends: late leases of a lagging environment still meet it. */
const KEPT_AFTER_WINDOW_MS = 60_000;

/**
 * The quota ledger of one process: unit tests, and whatever composition has a single environment. Each lease
 * is checked and counted in one synchronous step, which is what makes it atomic here.
 */
export class InMemoryClientQuotaLedger implements ClientQuotaLedger {
  /** Leased tokens by client and window start. */
  readonly #windows = new Map<string, { readonly end: number; leased: number }>();
  #latestStart = Number.NEGATIVE_INFINITY;

  async lease(request: QuotaLeaseRequest): Promise<number> {
    assertLeaseRequest(request);
    if (request.window.start > this.#latestStart) {
      this.#latestStart = request.window.start;
      this.#forgetBefore(request.window.start);
    }
    const key = `${request.client}\u0000${request.window.start}`;
    const window = this.#windows.get(key) ?? { end: request.window.end, leased: 0 };
    const granted = Math.max(0, Math.min(request.tokens, request.limit - window.leased));
    window.leased += granted;
    this.#windows.set(key, window);
    return granted;
  }

  /** Drops the counts of windows long over, as DynamoDB's TTL does with their items. */
  #forgetBefore(start: number): void {
    for (const [key, window] of this.#windows) if (window.end + KEPT_AFTER_WINDOW_MS < start) this.#windows.delete(key);
  }
}
