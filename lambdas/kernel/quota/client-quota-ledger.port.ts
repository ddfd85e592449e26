/** One app client's share of one quota window, as an execution environment asks the ledger for it. */
export interface QuotaLeaseRequest {
  /** The app client (`client_id` of the verified token). */
  readonly client: string;
  /** The window the tokens count against: epoch milliseconds, `start` included, `end` not. */
  readonly window: { readonly start: number; readonly end: number };
  /** How many tokens the environment wants (1 or more). */
  readonly tokens: number;
  /** What every environment together may lease in the window. */
  readonly limit: number;
}

/**
 * The shared count behind the per-client throttle (README, "Per-client throttling"): how many requests each app
 * client's window has handed out, to whichever execution environment asked. A lease is all-or-part: the ledger
 * grants `tokens`, or fewer when fewer remain under `limit`, or none, and never lets a window's total pass the
 * limit whatever leases race. Windows expire on their own; nothing is ever given back.
 */
export interface ClientQuotaLedger {
  /** The tokens granted: `request.tokens` while the window has room, the rest of it as the last lease, then 0. */
  lease(request: QuotaLeaseRequest): Promise<number>;
}

/** A lease request the ledger can act on: whole tokens, at least one, and a limit of at least one. */
export const assertLeaseRequest = (request: QuotaLeaseRequest): void => {
  const { tokens, limit, window } = request;
  if (!Number.isSafeInteger(tokens) || tokens < 1) throw new RangeError('A quota lease asks for one token or more');
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('A quota window admits one request or more');
  if (!Number.isSafeInteger(window.start) || !Number.isSafeInteger(window.end) || window.end <= window.start)
    throw new RangeError('A quota window ends after it starts, on whole milliseconds');
};
