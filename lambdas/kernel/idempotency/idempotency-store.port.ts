import type { Namespace } from '../namespaces/namespace.ts';
import { defineRecordKind } from '../namespaces/record-kind.ts';

/** Where a caller's Idempotency-Key claims are kept: a namespace of its own, never holding records. */
export const IDEMPOTENCY = defineRecordKind({ name: 'idempotency', audited: false });

export interface IdempotencyClaim {
  /** Digest of the operation, its target and its body: what "the same request" means. */
  readonly fingerprint: string;
  /** The id the first request chose for what it creates; a replay re-reads that record. */
  readonly recordId: string;
  readonly expiresAt: string;
}

export type ClaimOutcome = { readonly outcome: 'claimed' } | ({ readonly outcome: 'existing' } & IdempotencyClaim);

/** Remembers, per caller and key, which request first used an Idempotency-Key and what it created. */
export interface IdempotencyStore {
  /** Records the claim if the key is new in the namespace, else returns the claim already made. */
  claim(namespace: Namespace, key: string, claim: IdempotencyClaim): Promise<ClaimOutcome>;
}
