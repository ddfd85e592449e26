/** The core never reads the wall clock itself, so tests can move time (expiry, decay) deterministically. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told to move; for tests and for replaying a fixed instant. */
export class ManualClock implements Clock {
  #now: Date;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.#now = new Date(start);
  }

  now(): Date {
    return new Date(this.#now);
  }

  advance(milliseconds: number): void {
    this.#now = new Date(this.#now.getTime() + milliseconds);
  }

  advanceDays(days: number): void {
    this.advance(days * 86_400_000);
  }
}
