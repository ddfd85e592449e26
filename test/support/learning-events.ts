/** A declarative preference signal: the principal says it once, and it applies at once. */
export const declaredSignal = (key: string, value: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'signal',
  key,
  value,
  kind: 'preference',
  basis: 'declarative',
  cardinality: 'single',
  ...extra,
});
