/*
 * EVIDENCE-BASED STATE RESOLUTION (reference 001 §B.3, eq. 10–11). A state key is an entity·attribute pair;
 * each evidence item has a value, an authority tier, a source, an observation time and a confidence.
 * - eligible:   confidence ≥ 0.70 (eq. 10). None → unresolved, observe.
 * - top tier:   the highest tier among the eligible (eq. 11); authority order authoritative state > tool
 *               observation > verified artifact > agent inference. Confidence decides eligibility only, never
 *               a conflict.
 * - inference:  agent inference alone never establishes external state → unresolved, observe (negotiate only
 *               when no external source exists: the caller's decision).
 * - per source: within the top tier, each source counts with its latest observation; two different values at
 *               that same latest instant are a tie → unresolved.
 * - sources:    they agree → resolved to that value; they disagree → unresolved, a fresh authoritative or
 *               tool observation is needed.
 * - re-observe: a newer eligible report that contradicts the resolved value asks for the key to be observed again.
 * C_s (eq. 7) is every key with two eligible items of different values, whatever their tiers.
 */

export const EVIDENCE_TIERS = ['authoritative', 'tool_observation', 'verified_artifact', 'agent_inference'] as const;
export type EvidenceTier = (typeof EVIDENCE_TIERS)[number];

/** Higher is more authoritative. */
const authorityOf = (tier: EvidenceTier): number => EVIDENCE_TIERS.length - EVIDENCE_TIERS.indexOf(tier);

export const DEFAULT_MIN_EVIDENCE_CONFIDENCE = 0.7;

export interface StateEvidence {
  /** `entity·attribute`, e.g. `cup-1.location`. */
  readonly key: string;
  /** Compared as JSON: the same value is the same JSON. */
  readonly value: unknown;
  readonly tier: EvidenceTier;
  readonly source: string;
  /** ISO-8601. */
  readonly observedAt: string;
  readonly confidence: number;
}

export type StateResolution =
  | {
      readonly key: string;
      readonly status: 'resolved';
      readonly value: unknown;
      readonly tier: EvidenceTier;
      readonly sources: readonly string[];
      readonly reobserve: boolean;
    }
  | {
      readonly key: string;
      readonly status: 'unresolved';
      readonly reason: 'no_eligible_evidence' | 'inference_only' | 'tie' | 'conflicting_sources';
      /** What the controller should do next. */
      readonly next: 'observe' | 'fresh_authoritative_or_tool_observation';
      readonly tier?: EvidenceTier;
    };

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const instantOf = (item: StateEvidence): number => Date.parse(item.observedAt);

export function resolveKey(
  key: string,
  evidence: readonly StateEvidence[],
  minConfidence = DEFAULT_MIN_EVIDENCE_CONFIDENCE,
): StateResolution {
  const eligible = evidence.filter((item) => item.key === key && item.confidence >= minConfidence);
  if (eligible.length === 0) return { key, status: 'unresolved', reason: 'no_eligible_evidence', next: 'observe' };
  const topAuthority = Math.max(...eligible.map((item) => authorityOf(item.tier)));
  const top = eligible.filter((item) => authorityOf(item.tier) === topAuthority);
  const tier = (top[0] as StateEvidence).tier;
  if (tier === 'agent_inference') return { key, status: 'unresolved', reason: 'inference_only', next: 'observe', tier };
  // Instants compared as instants: `10:00:00.5Z` and `10:00:00.500Z` are one time, and text order is not time order.
  const latestBySource = new Map<string, StateEvidence[]>();
  for (const item of top) {
    const known = latestBySource.get(item.source);
    const knownAt = known?.[0] === undefined ? undefined : instantOf(known[0]);
    const itemAt = instantOf(item);
    if (knownAt === undefined || itemAt > knownAt) latestBySource.set(item.source, [item]);
    else if (itemAt === knownAt) known?.push(item);
  }
  const reports = [...latestBySource.values()];
  if (reports.some((latest) => latest.some((item) => !sameValue(item.value, (latest[0] as StateEvidence).value))))
    return { key, status: 'unresolved', reason: 'tie', next: 'observe', tier };
  const value = ((reports[0] as StateEvidence[])[0] as StateEvidence).value;
  if (reports.some((latest) => !sameValue((latest[0] as StateEvidence).value, value)))
    return {
      key,
      status: 'unresolved',
      reason: 'conflicting_sources',
      next: 'fresh_authoritative_or_tool_observation',
      tier,
    };
  const newest = eligible.reduce((best, item) => (instantOf(item) > instantOf(best) ? item : best));
  return {
    key,
    status: 'resolved',
    value,
    tier,
    sources: [...latestBySource.keys()].sort(),
    reobserve: !sameValue(newest.value, value),
  };
}

/** Every key the evidence mentions, resolved, in key order. */
export const resolveState = (
  evidence: readonly StateEvidence[],
  minConfidence = DEFAULT_MIN_EVIDENCE_CONFIDENCE,
): StateResolution[] =>
  [...new Set(evidence.map((item) => item.key))].sort().map((key) => resolveKey(key, evidence, minConfidence));

/** C_s of eq. 7: the keys with eligible evidence of two different values. */
export function conflictingKeys(
  evidence: readonly StateEvidence[],
  minConfidence = DEFAULT_MIN_EVIDENCE_CONFIDENCE,
): string[] {
  const firstValue = new Map<string, unknown>();
  const conflicted = new Set<string>();
  for (const item of evidence) {
    if (item.confidence < minConfidence) continue;
    if (!firstValue.has(item.key)) firstValue.set(item.key, item.value);
    else if (!sameValue(firstValue.get(item.key), item.value)) conflicted.add(item.key);
  }
  return [...conflicted].sort();
}
