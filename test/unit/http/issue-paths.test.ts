import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { REDACTED_KEY, shownIssuePath } from '../../../lambdas/http/issue-paths.ts';

const pathsOf = (schema: z.ZodType, input: unknown) =>
  (schema.safeParse(input).error?.issues ?? []).map((issue) => shownIssuePath(schema, issue.path).join('.'));

describe('Function: shownIssuePath', () => {
  it('keeps declared field names and array indices', () => {
    // Prepare
    const schema = z.object({ items: z.array(z.object({ size: z.number() })).optional() });

    // Act
    const paths = pathsOf(schema, { items: [{ size: 1 }, { size: 'x' }] });

    // Assess
    expect(paths).toEqual(['items.1.size']);
  });

  it('replaces a record key, whether the key or its value is the invalid part', () => {
    // Prepare
    const schema = z.object({ attributes: z.record(z.string().regex(/^[a-z]+$/), z.number()) });

    // Act
    const paths = pathsOf(schema, { attributes: { 'SECRET key': 1, secret: 'not a number' } });

    // Assess
    expect(paths).toEqual([`attributes.${REDACTED_KEY}`, `attributes.${REDACTED_KEY}`]);
  });

  it('follows discriminated unions, defaults and pipes down to the declared field', () => {
    // Prepare
    const schema = z.object({
      signal: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('a'), value: z.number() }),
        z.object({ kind: z.literal('b'), tags: z.record(z.string(), z.string()).default({}) }),
      ]),
      text: z
        .string()
        .transform((text) => text.trim())
        .pipe(z.string().min(1)),
    });

    // Act
    const paths = pathsOf(schema, { signal: { kind: 'b', tags: { private: 3 } }, text: 'ok' });
    const union = pathsOf(schema, { signal: { kind: 'a', value: 'x' }, text: 'ok' });

    // Assess
    expect(paths).toEqual([`signal.tags.${REDACTED_KEY}`]);
    expect(union).toEqual(['signal.value']);
  });

  it('hides a segment it cannot place in the schema', () => {
    expect(shownIssuePath(z.object({ a: z.string() }), ['b', 'c'])).toEqual([REDACTED_KEY, REDACTED_KEY]);
  });
});
