/**
 * Reserved concurrency of the stack's functions: a bound on each, and a share of the account's regional pool
 * kept for it.
 *
 * Nothing is reserved unless asked for. Lambda refuses a reservation that leaves the account fewer than 100
 * unreserved executions, and a new account starts with a reduced concurrency quota (AWS raises it with use):
 * there, any reservation at all fails the first `cdk deploy`, which rolls back and leaves the retained key,
 * table and log groups behind. Until then every function is bounded without a reservation: the API by the
 * stage's throttle, the relay by the stream's shards, the sweep by its schedule, workflow steps by their
 * state machines. `RECOMMENDED_RESERVED_CONCURRENCY` is for an account at the standard quota (1,000).
 */

/** The functions a reservation is given to; each function of a group gets the group's number. */
export const FUNCTION_GROUPS = ['api', 'consumer', 'relay', 'sweep', 'workflowStep', 'preTokenGeneration'] as const;
export type FunctionGroup = (typeof FUNCTION_GROUPS)[number];

/** Executions reserved for each function of a group; a group left out is not reserved. */
export type ReservedConcurrency = Partial<Record<FunctionGroup, number>>;

/** What the stack reserves when told nothing: nothing, so it deploys in any account (see above). */
export const DEFAULT_RESERVED_CONCURRENCY: ReservedConcurrency = Object.freeze({});

/**
 * A reservation for an account at the standard quota (21 of 1,000): each consumer 10 (throttled events wait in
 * Lambda's asynchronous queue, up to six hours, and are not lost; 10 executions of a few tens of milliseconds
 * keep up with hundreds of events a second) and the sweep 1 (a second sweep at once only repeats the first).
 * Not the workflow step runner: Step Functions does not retry a throttled step, the run would fail.
 */
export const RECOMMENDED_RESERVED_CONCURRENCY: ReservedConcurrency = Object.freeze({ consumer: 10, sweep: 1 });

/** Lambda keeps at least this many of the account's executions unreserved. */
export const MIN_UNRESERVED_CONCURRENCY = 100;
/** The default regional quota of an established account. */
export const STANDARD_ACCOUNT_CONCURRENCY = 1000;

export interface ConcurrencyProps {
  /**
   * Executions reserved per function, by group, or `recommended` for `RECOMMENDED_RESERVED_CONCURRENCY`.
   * Context `reservedConcurrency` (`recommended`, or JSON such as `{"consumer":10,"api":20}`).
   * @default DEFAULT_RESERVED_CONCURRENCY (nothing reserved)
   */
  readonly reservedConcurrency?: ReservedConcurrency | 'recommended';
  /**
   * The account's regional concurrency quota, against which reservations are checked at synthesis so that a
   * deployment is not refused for them. Context `accountConcurrency`.
   * @default STANDARD_ACCOUNT_CONCURRENCY
   */
  readonly accountConcurrency?: number;
}

/** Something whose concurrency can be reserved (a `ServiceFunction`). */
export interface ReservableFunction {
  readonly node: { readonly path: string };
  reserveConcurrency(executions: number): void;
}

/**
 * Reserves each group's number on every function of the group; throws when a number is not a positive whole
 * number, or when the total would leave the account fewer than `MIN_UNRESERVED_CONCURRENCY` unreserved.
 */
export function reserveConcurrency(
  functions: Readonly<Record<FunctionGroup, readonly ReservableFunction[]>>,
  props: ConcurrencyProps = {},
): void {
  const reserved =
    props.reservedConcurrency === 'recommended'
      ? RECOMMENDED_RESERVED_CONCURRENCY
      : (props.reservedConcurrency ?? DEFAULT_RESERVED_CONCURRENCY);
  const account = props.accountConcurrency ?? STANDARD_ACCOUNT_CONCURRENCY;
  if (!Number.isInteger(account) || account < 1) {
    throw new Error(`accountConcurrency must be a positive whole number, not ${account}`);
  }
  let total = 0;
  for (const [group, executions] of Object.entries(reserved) as [string, number | undefined][]) {
    if (!(FUNCTION_GROUPS as readonly string[]).includes(group)) {
      throw new Error(`reservedConcurrency names "${group}", not one of ${FUNCTION_GROUPS.join(', ')}`);
    }
    if (executions === undefined) continue;
    if (!Number.isInteger(executions) || executions < 1) {
      // Zero is Lambda's way of switching a function off, not a bound.
      throw new Error(`reservedConcurrency.${group} must be a whole number of at least 1, not ${executions}`);
    }
    total += executions * (functions[group as FunctionGroup]?.length ?? 0);
  }
  if (total > 0 && account - total < MIN_UNRESERVED_CONCURRENCY) {
    throw new Error(
      `reservedConcurrency reserves ${total} executions; an account of ${account} must keep ` +
        `${MIN_UNRESERVED_CONCURRENCY} unreserved, so at most ${Math.max(0, account - MIN_UNRESERVED_CONCURRENCY)} can be reserved`,
    );
  }
  for (const group of FUNCTION_GROUPS) {
    const executions = reserved[group];
    if (executions === undefined) continue;
    for (const serviceFunction of functions[group]) serviceFunction.reserveConcurrency(executions);
  }
}

/** The concurrency props from context: `reservedConcurrency` (`recommended` or JSON) and `accountConcurrency`. */
export function concurrencyFromContext(context: (key: string) => unknown): ConcurrencyProps {
  const reserved = context('reservedConcurrency');
  const account = context('accountConcurrency');
  const parsed = (value: unknown, name: string): unknown => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      throw new Error(`context ${name} must be JSON (e.g. {"consumer":10}) or a number, not "${value}"`);
    }
  };
  const reservedConcurrency = reserved === 'recommended' ? 'recommended' : parsed(reserved, 'reservedConcurrency');
  if (
    reservedConcurrency !== undefined &&
    reservedConcurrency !== 'recommended' &&
    (typeof reservedConcurrency !== 'object' || reservedConcurrency === null || Array.isArray(reservedConcurrency))
  ) {
    throw new Error('context reservedConcurrency must be "recommended" or an object of group → executions');
  }
  const accountConcurrency = parsed(account, 'accountConcurrency');
  return {
    ...(reservedConcurrency === undefined
      ? {}
      : { reservedConcurrency: reservedConcurrency as ReservedConcurrency | 'recommended' }),
    ...(accountConcurrency === undefined ? {} : { accountConcurrency: Number(accountConcurrency) }),
  };
}
