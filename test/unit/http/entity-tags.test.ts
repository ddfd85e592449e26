import { describe, expect, it } from 'vitest';
import { etagOf, expectedRevisionsOf, revisionsNamedBy } from '../../../lambdas/http/entity-tags.ts';

describe('Module: entity-tags', () => {
  const id = '01JDX0000000000000000000AA';

  it('gives each revision of each record its own strong ETag', () => {
    expect(etagOf(id, 1)).toMatch(/^"1-[A-Za-z0-9_-]{12}"$/);
    expect(etagOf(id, 2)).not.toBe(etagOf(id, 1));
    expect(etagOf('01JDX0000000000000000000AB', 1)).not.toBe(etagOf(id, 1));
  });

  it('reads the revisions of this record an If-Match list names, whatever the spacing', () => {
    expect(revisionsNamedBy(`${etagOf(id, 3)} ,${etagOf(id, 7)}`, id)).toEqual([3, 7]);
  });

  it("names nothing with another record's ETag, a weak or forged tag, or a malformed value", () => {
    const foreign = etagOf('01JDX0000000000000000000AB', 1);
    expect(revisionsNamedBy(foreign, id)).toEqual([]);
    expect(revisionsNamedBy(`W/${etagOf(id, 1)}`, id)).toEqual([]);
    expect(revisionsNamedBy('"1-AAAAAAAAAAAA"', id)).toEqual([]);
    expect(revisionsNamedBy('*', id)).toEqual([]);
    expect(revisionsNamedBy('', id)).toEqual([]);
    expect(revisionsNamedBy(`${foreign}, ${etagOf(id, 2)}`, id)).toEqual([2]);
  });

  it('compares strongly and case-sensitively: the same tag in another letter case names nothing', () => {
    const etag = etagOf(id, 4);
    const swapped = [...etag].map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()));

    for (const variant of [swapped.join(''), etag.toLowerCase(), etag.toUpperCase()].filter((tag) => tag !== etag))
      expect(revisionsNamedBy(variant, id), variant).toEqual([]);
    expect(revisionsNamedBy(etag, id)).toEqual([4]);
  });

  it('tells an absent If-Match (undefined) from one that names nothing (an empty list)', () => {
    expect(expectedRevisionsOf(undefined, id)).toBeUndefined();
    expect(expectedRevisionsOf('"9-x"', id)).toEqual([]);
  });
});
