import { monotonicFactory } from 'ulid';

/** Generates record and event ids: ULIDs, so ids sort by creation time and listings come out in order. */
export interface IdGenerator {
  next(): string;
}

export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const createUlidGenerator = (): IdGenerator => {
  const nextUlid = monotonicFactory();
  return { next: () => nextUlid() };
};
