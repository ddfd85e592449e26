/** The generator's working copy of the set: memories and queries by position, before the shuffle gives ids. */
import type { RandomSource } from './random-source.ts';

export type Grade = 1 | 2;

export interface DraftMemory {
  readonly kind: 'note' | 'belief';
  readonly text: string;
  readonly tags: readonly string[];
  readonly ruleKey?: string;
  readonly session?: string;
  readonly turn?: number;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
}

export interface DraftQuery {
  readonly text: string;
  readonly category: string;
  readonly relevant: readonly { readonly key: number; readonly grade: Grade }[];
  readonly session?: string;
  readonly turn?: number;
}

export class MemoryBook {
  readonly memories: DraftMemory[] = [];

  /** Adds a memory and returns its key (its position here). */
  add(memory: DraftMemory): number {
    this.memories.push(memory);
    return this.memories.length - 1;
  }
}

const DAY_MS = 86_400_000;

/** Midnight UTC of a day of 2026 (month 1-12). */
export const dayOf2026 = (month: number, day: number): number => Date.UTC(2026, month - 1, day);

/** An instant between two days of 2026, at a working-ish hour, on the minute. */
export const instantBetween = (random: RandomSource, from: number, to: number): number => {
  const days = Math.max(0, Math.floor((to - from) / DAY_MS));
  return from + random.int(0, days) * DAY_MS + random.int(7 * 60, 21 * 60) * 60_000;
};

export const daysLater = (instant: number, days: number): number => instant + days * DAY_MS;

/** The last instant the set holds: nothing is created after the end of November 2026. */
export const SET_END = dayOf2026(11, 30);
