import fc from 'fast-check';
import {
  type DocumentedOperation,
  type DocumentedParameter,
  type JsonSchema,
  type OpenApiDocument,
  resolved,
} from './openapi-document.ts';

/*
 * fast-check arbitraries for requests to an operation of the OpenAPI document: valid-shaped values derived
 * from its schemas, and hostile ones (wrong types, huge and odd strings, nested junk, invalid JSON, odd
 * headers, path segments and query values). A plan is plain data; wherever a generated string holds
 * CANARY, the request sender puts a fresh canary there, so a response that echoes input can be told apart
 * from one that returns what was legitimately stored.
 */

/** Stands for a fresh canary in a plan; see `CanaryMint`. */
export const CANARY = '‹canary›';
/** Every canary starts with this and nothing the service writes contains it. */
export const CANARY_MARKER = 'zqcanary';
/** What a canary looks like once sent: the marker and six base-36 digits, so it fits every name grammar. */
const SAMPLE_CANARY = `${CANARY_MARKER}000000`;

/** The plan's text as it will be sent (with some canary), to check lengths and patterns while generating. */
const sample = (text: string): string => text.replaceAll(CANARY, SAMPLE_CANARY);

export type SegmentPlan =
  | { readonly kind: 'fixture' }
  /** `component`: encodeURIComponent; `every-byte`: every UTF-8 byte percent-encoded; `verbatim`: as written. */
  | { readonly kind: 'text'; readonly text: string; readonly encoding: 'component' | 'every-byte' | 'verbatim' };

export type QueryValuePlan =
  | { readonly kind: 'text'; readonly text: string; readonly encoding: 'component' | 'verbatim' }
  /** A real cursor the service handed out: for this operation's listing, or for another one's. */
  | { readonly kind: 'cursor'; readonly from: 'same' | 'foreign'; readonly pick: number }
  /** base64url(JSON) in the shape the service's cursors have, with whatever payload. */
  | { readonly kind: 'forged-cursor'; readonly payload: unknown }
  /** An instant relative to when the request is sent, as ISO 8601. */
  | { readonly kind: 'instant'; readonly offsetSeconds: number };

export type EntityTagChoice =
  | 'current'
  | 'first'
  | 'other-record'
  | 'current-lowercase'
  | 'current-weak'
  | 'current-in-list';

export type HeaderValuePlan =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'entity-tag'; readonly which: EntityTagChoice };

export type BodyPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'raw'; readonly text: string }
  /** Bytes that are not UTF-8 (or not UTF-8 JSON), hex-encoded, around a canary. */
  | { readonly kind: 'bytes'; readonly hexBefore: string; readonly hexAfter: string }
  /** A JSON body of about this many bytes. */
  | { readonly kind: 'huge'; readonly bytes: number };

/** How the Authorization header carries the token; only `bearer` is the form both modes must accept. */
export type AuthorizationForm = 'bearer' | 'lower-case-scheme' | 'two-spaces' | 'no-scheme' | 'trailing-space';

export interface TokenPlan {
  /** A name from the token catalogue the test defines (see `TOKEN_KINDS` in the fuzz fixtures). */
  readonly kind: string;
  readonly form: AuthorizationForm;
}

export interface RequestPlan {
  readonly operationId: string;
  readonly token: TokenPlan;
  readonly path: Readonly<Record<string, SegmentPlan>>;
  readonly query: readonly (readonly [string, QueryValuePlan])[];
  readonly headers: readonly (readonly [string, HeaderValuePlan])[];
  readonly body: BodyPlan;
}

// ---------------------------------------------------------------------------------------------------------
// Strings

const ODD_TEXT = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff',
  '\u202e',
  '\u200b',
  '\ufeff',
  'é',
  'e\u0301',
  '👍🏽',
  '𝔘𝔫𝔦',
  '日本語',
  '\r\n',
  '\t',
  '"',
  "'",
  '\\',
  '<script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder is the point
  '${x}',
  '%s%n',
  '../',
  '..\\',
  '%00',
  '%',
  'null',
  '__proto__',
  'NaN',
];

/** Short strings that break naive handling: controls, lone surrogates, bidi overrides, combining marks. */
export const oddText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD_TEXT),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);

/** Some odd text around one canary, `minLength`..`maxLength` UTF-16 units long once sent. */
export const canaryText = (minLength = 0, maxLength = 200): fc.Arbitrary<string> => {
  if (maxLength < SAMPLE_CANARY.length) return fc.string({ minLength, maxLength });
  const fits = (text: string) => sample(text).length >= minLength && sample(text).length <= maxLength;
  const short = fc.tuple(oddText, oddText).map(([before, after]) => `${before}${CANARY}${after}`);
  const room = Math.max(0, maxLength - SAMPLE_CANARY.length);
  // Near the limit, where off-by-one and byte-versus-character mistakes live.
  const long = fc
    .tuple(fc.integer({ min: Math.max(0, room - 8), max: room }), fc.constantFrom('a', 'é', '日'))
    .map(([length, unit]) => `${CANARY}${unit.repeat(length)}`);
  return fc.oneof({ weight: 4, arbitrary: short.filter(fits) }, { weight: 1, arbitrary: long.filter(fits) });
};

/** Strings for header values: Node's client sends only tab and printable Latin-1. */
export const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'é', '\t', '"', ',', ';', '*', 'W/', '%00', '\\'),
  fc.string({
    unit: fc.constantFrom(...'\t !"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~\u00a0\u00e9\u00ff'),
    maxLength: 6,
  }),
);

export const headerCanaryText: fc.Arbitrary<string> = fc
  .tuple(headerText, headerText)
  .map(([before, after]) => `${before}${CANARY}${after}`);

/** Puts a canary into a string the pattern generated, where the pattern still matches; else the string as is. */
const withCanarySpliced =
  (regex: RegExp, minLength: number, maxLength: number) =>
  ([text, at]: [string, number]): string => {
    const acceptable = (candidate: string) =>
      regex.test(sample(candidate)) && sample(candidate).length >= minLength && sample(candidate).length <= maxLength;
    for (let offset = 0; offset <= text.length; offset++) {
      const position = (at + offset) % (text.length + 1);
      const replaced = `${text.slice(0, position)}${CANARY}${text.slice(position + SAMPLE_CANARY.length)}`;
      if (acceptable(replaced)) return replaced;
      const inserted = `${text.slice(0, position)}${CANARY}${text.slice(position)}`;
      if (acceptable(inserted)) return inserted;
    }
    return text;
  };

// ---------------------------------------------------------------------------------------------------------
// Valid-shaped values from a schema

const MAX_GENERATED_ITEMS = 4;

export interface ValueOptions {
  /**
   * Give map-like objects (`additionalProperties` with a schema) keys their `propertyNames` refuse, with a canary:
   * such a key is data, not a field name, so an error must not quote it.
   */
  readonly invalidMapKeys?: boolean;
}

/** Values the schema accepts, with a canary in every string that can hold one (or, with options, almost accepts). */
export const validValueOf = (
  document: OpenApiDocument,
  schema: JsonSchema,
  options: ValueOptions = {},
): fc.Arbitrary<unknown> => {
  const s = resolved(document, schema);
  const valueFor = (inner: JsonSchema) => validValueOf(document, inner, options);
  // With refused map keys asked for, always reach a map where there is one to reach.
  const reachesMap = (inner: JsonSchema) => options.invalidMapKeys === true && holdsMap(document, inner);
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const variants = s.oneOf ?? s.anyOf;
  if (variants) {
    const towardsMap = variants.filter(reachesMap);
    return fc.oneof(...(towardsMap.length > 0 ? towardsMap : variants).map(valueFor));
  }
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => valueFor({ ...s, type })));
  switch (s.type) {
    case 'object': {
      if (typeof s.additionalProperties === 'object') {
        const validKey = s.propertyNames ? (valueFor(s.propertyNames) as fc.Arbitrary<string>) : canaryText(1, 40);
        const keyPattern = s.propertyNames?.pattern;
        const refusing = options.invalidMapKeys === true && keyPattern !== undefined;
        const refusedKey = canaryText(1, 40).filter((key) => !new RegExp(keyPattern ?? '').test(sample(key)));
        return fc.dictionary(refusing ? refusedKey : validKey, valueFor(s.additionalProperties), {
          minKeys: refusing ? 1 : 0,
          maxKeys: MAX_GENERATED_ITEMS,
        });
      }
      const shape = Object.fromEntries(
        Object.entries(s.properties ?? {}).map(([name, field]) => [name, valueFor(field)]),
      );
      const towardsMap = Object.entries(s.properties ?? {}).filter(([, field]) => reachesMap(field));
      return fc.record(shape, { requiredKeys: [...(s.required ?? []), ...towardsMap.map(([name]) => name)] });
    }
    case 'array':
      return fc.array(valueFor(s.items ?? {}), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS)),
      });
    case 'string':
      return validStringOf(s);
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1e9, -1e9), max: Math.min(s.maximum ?? 1e9, 1e9) });
    case 'number':
      return fc.oneof(
        fc.double({ min: s.minimum ?? -1e12, max: s.maximum ?? 1e12, noNaN: true, noDefaultInfinity: true }),
        fc.integer({ min: Math.max(s.minimum ?? -1000, -1000), max: Math.min(s.maximum ?? 1000, 1000) }),
      );
    case 'boolean':
      return fc.boolean();
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
};

/** Whether a value of the schema can hold a map-like object whose keys have a pattern (data keys, not fields). */
export const holdsMap = (document: OpenApiDocument, schema: JsonSchema, depth = 0): boolean => {
  const s = resolved(document, schema);
  if (depth > 8) return false;
  if (typeof s.additionalProperties === 'object' && s.propertyNames?.pattern !== undefined) return true;
  const inner = [
    ...(s.oneOf ?? []),
    ...(s.anyOf ?? []),
    ...Object.values(s.properties ?? {}),
    ...(s.items ? [s.items] : []),
  ];
  return inner.some((candidate) => holdsMap(document, candidate, depth + 1));
};

export const validStringOf = (s: JsonSchema): fc.Arbitrary<string> => {
  const minLength = s.minLength ?? 0;
  const maxLength = s.maxLength ?? 300;
  if (s.pattern === undefined) return canaryText(minLength, maxLength);
  const regex = new RegExp(s.pattern);
  return fc
    .tuple(
      fc.stringMatching(regex).filter((text) => text.length >= minLength && text.length <= maxLength),
      fc.nat(),
    )
    .map(withCanarySpliced(regex, minLength, maxLength));
};

// ---------------------------------------------------------------------------------------------------------
// Hostile values and bodies

/** Names that are not fields of any schema, or look like fields but are not (case, whitespace, prototype). */
const JUNK_KEYS = ['extra', 'Text', 'text ', '', '__proto__', 'constructor', 'prototype', '$where', 'a.b', 'é', '0'];

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(0, -0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 5e-324, 2 ** 31),
  canaryText(0, 40),
  fc.integer({ min: 16_001, max: 70_000 }).map((length) => `${CANARY}${'x'.repeat(length)}`),
);

/** Any JSON, mostly of the wrong shape: scalars of every type, arrays and objects of junk. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileScalar,
    fc.array(tie('value'), { maxLength: 3 }),
    // Names of unknown fields carry no canary: an error names them, by design (README, "Errors").
    fc.dictionary(fc.oneof(fc.constantFrom(...JUNK_KEYS), oddText), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** Every property path of a JSON value (objects only, a few levels deep). */
const propertyPaths = (value: unknown, prefix: readonly string[] = [], depth = 0): string[][] => {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth > 3) return [];
  return Object.entries(value).flatMap(([key, field]) => [
    [...prefix, key],
    ...propertyPaths(field, [...prefix, key], depth + 1),
  ]);
};

type Mutation = 'replace' | 'drop' | 'add';

const mutated = ([value, at, replacement, mutation, junkKey]: [
  unknown,
  number,
  unknown,
  Mutation,
  string,
]): unknown => {
  const copy = structuredClone(value) as Record<string, unknown>;
  const paths = propertyPaths(copy);
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) return replacement;
  const path = paths.length > 0 ? paths[at % paths.length] : undefined;
  const parent = (path ?? [])
    .slice(0, -1)
    .reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, copy);
  const key = path?.at(-1);
  if (mutation === 'add' || key === undefined)
    Object.defineProperty(parent, junkKey, {
      value: replacement,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else if (mutation === 'drop') delete parent[key];
  else parent[key] = replacement;
  return copy;
};

/** A valid body with one property replaced by junk, dropped, or joined by an unknown one. */
const mutatedValue = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      valid,
      fc.nat(),
      hostileValue,
      fc.constantFrom<Mutation>('replace', 'replace', 'drop', 'add'),
      fc.constantFrom(...JUNK_KEYS),
    )
    .map(mutated);

/** Text that is not JSON, or JSON that a lenient reader would take differently. */
const invalidJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    `{"text":"${CANARY}"`,
    `{"text":${CANARY}}`,
    `{'text':'${CANARY}'}`,
    `\ufeff{"text":"${CANARY}"}`,
    `{"text":"${CANARY}"}trailing`,
    `{"text":"${CANARY}"}{"text":"x"}`,
    `{"text":"${CANARY}",}`,
    `[${CANARY}`,
    '{',
    '}',
    'nul',
    'NaN',
    'Infinity',
    'undefined',
    ' ',
    '\n',
    '\u0000',
    `{"text":"\\ud800${CANARY}"}`,
    `{"text":"${CANARY}","text":5}`,
    `{"__proto__":{"admin":true},"text":"${CANARY}"}`,
    `{"constructor":{"prototype":{"admin":true}},"text":"${CANARY}"}`,
    `"${CANARY}"`,
    'null',
    '[]',
    '0',
  ),
  // Nesting deep enough to trouble a recursive parser or validator, inside a field or at the top.
  fc.tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean()).map(([depth, inField]) => {
    const nested = `${'['.repeat(depth)}"${CANARY}"${']'.repeat(depth)}`;
    return inField ? `{"text":${nested}}` : nested;
  }),
);

/** Bodies for an operation: mostly valid-shaped when it takes one, sometimes any of the hostile kinds. */
export const bodyPlanOf = (document: OpenApiDocument, operation: DocumentedOperation): fc.Arbitrary<BodyPlan> => {
  const hostile: fc.WeightedArbitrary<BodyPlan>[] = [
    { weight: 3, arbitrary: hostileValue.map((value) => ({ kind: 'json', value }) as const) },
    { weight: 3, arbitrary: invalidJson.map((text) => ({ kind: 'raw', text }) as const) },
    { weight: 3, arbitrary: fc.constant({ kind: 'raw', text: '' } as const) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          // A UTF-16 BOM, an overlong '/', an encoded lone surrogate, stray bytes, a UTF-8 BOM
          fc.constantFrom('fffe', 'c0af', 'eda080', 'ff', '80', 'efbbbf'),
          fc.constantFrom('', 'ff', '"}'),
        )
        .map(([hexBefore, hexAfter]) => ({ kind: 'bytes', hexBefore, hexAfter }) as const),
    },
    {
      // Over the configured limit, and over the local server's hard limit: the rarest, each costs up to a megabyte.
      weight: 1,
      arbitrary: fc
        .oneof(fc.integer({ min: 65_537, max: 70_000 }), fc.constant(1_100_000))
        .map((bytes) => ({ kind: 'huge', bytes }) as const),
    },
  ];
  if (operation.requestBody === undefined)
    return fc.oneof({ weight: 36, arbitrary: fc.constant({ kind: 'none' } as const) }, ...hostile);
  const valid = validValueOf(document, operation.requestBody);
  const withRefusedMapKeys = validValueOf(document, operation.requestBody, { invalidMapKeys: true });
  return fc.oneof(
    { weight: 24, arbitrary: valid.map((value) => ({ kind: 'json', value }) as const) },
    {
      weight: holdsMap(document, operation.requestBody) ? 6 : 0,
      arbitrary: withRefusedMapKeys.map((value) => ({ kind: 'json', value }) as const),
    },
    { weight: 9, arbitrary: mutatedValue(valid).map((value) => ({ kind: 'json', value }) as const) },
    { weight: 3, arbitrary: fc.constant({ kind: 'none' } as const) },
    ...hostile,
  );
};

// ---------------------------------------------------------------------------------------------------------
// Path segments

const hostileSegment: fc.Arbitrary<SegmentPlan> = fc.oneof(
  canaryText(1, 40).map((text) => ({ kind: 'text', text, encoding: 'component' }) as const),
  canaryText(1, 40).map((text) => ({ kind: 'text', text, encoding: 'every-byte' }) as const),
  fc
    .integer({ min: 65, max: 2_000 })
    .map((length) => ({ kind: 'text', text: `${CANARY}${'a'.repeat(length)}`, encoding: 'component' }) as const),
  // Dot segments, raw and percent-encoded: data, never path structure, when encoded.
  fc
    .constantFrom('.', '..', '%2e', '%2e%2e', '%2E%2E', '.%2e', '%2e.')
    .map((text) => ({ kind: 'text', text, encoding: 'verbatim' }) as const),
  fc.constantFrom('.', '..').map((text) => ({ kind: 'text', text, encoding: 'every-byte' }) as const),
  // Encoded separators, NUL, malformed escapes, characters a path may carry raw.
  fc
    .constantFrom(
      `${CANARY}%2F..%2F`,
      `${CANARY}%2f`,
      `${CANARY}%00`,
      `${CANARY}%zz`,
      `${CANARY}%`,
      `${CANARY}%C0%AF`,
      `${CANARY};x=1`,
      `${CANARY}@:!$&'()*+,=`,
      `${CANARY}%20`,
      '%E2%80%AE',
    )
    .map((text) => ({ kind: 'text', text, encoding: 'verbatim' }) as const),
);

const pathSegmentOf = (parameter: DocumentedParameter, hasFixture: boolean): fc.Arbitrary<SegmentPlan> =>
  fc.oneof(
    { weight: hasFixture ? 8 : 0, arbitrary: fc.constant({ kind: 'fixture' } as const) },
    {
      weight: 3,
      arbitrary: validStringOf(parameter.schema).map(
        (text) => ({ kind: 'text', text, encoding: 'component' }) as const,
      ),
    },
    { weight: 3, arbitrary: hostileSegment },
  );

// ---------------------------------------------------------------------------------------------------------
// Query values

/** Payloads shaped like the service's cursors (`{v, p}`) and not. */
const forgedCursor: fc.Arbitrary<QueryValuePlan> = fc
  .oneof(
    fc.constantFrom(
      { v: 1, p: CANARY },
      { v: 1, p: `../../${CANARY}` },
      { v: 1, p: `t/other/p/someone/note/${CANARY}` },
      { v: 1, p: `${CANARY}${'x'.repeat(600)}` },
      { v: 2, p: CANARY },
      { v: 1, p: 5 },
      { v: 1 },
      { v: '1', p: CANARY },
      [],
      null,
      CANARY,
      { v: 1, p: '' },
    ),
    fc.record({ v: fc.constant(1), p: canaryText(0, 80) }),
  )
  .map((payload) => ({ kind: 'forged-cursor', payload }) as const);

const textValue = (text: fc.Arbitrary<string>, encoding: 'component' | 'verbatim' = 'component') =>
  text.map((value) => ({ kind: 'text', text: value, encoding }) as const);

const CURSOR_GARBAGE = ['', '=', '%zz', 'a'.repeat(1025), '____', `${CANARY}==`, `eyJ2IjoxLCJwIjo${CANARY}`];
const LIMIT_EDGES = [
  '0',
  '1',
  '100',
  '101',
  '-1',
  '1.5',
  '1e2',
  ' 7',
  '0x10',
  'NaN',
  'Infinity',
  '',
  '9'.repeat(400),
  '٣',
  '+5',
  '5,6',
];
const INSTANT_EDGES = [
  '9999-12-31T23:59:59Z',
  '0000-01-01T00:00:00Z',
  '2024-02-30T00:00:00Z',
  '2024-02-29T00:00:00.123456789Z',
  '2024-01-01T00:00:00+01:00',
  '2024-01-01',
  '2024-01-01T24:00:00Z',
  '1970-01-01T00:00:00Z',
];

/** Values for one documented query parameter; cursors, page sizes and instants get their own hostile kinds. */
export const queryValueOf = (parameter: DocumentedParameter): fc.Arbitrary<QueryValuePlan> => {
  const hostileText = fc.oneof(
    textValue(canaryText(0, 60)),
    textValue(fc.constantFrom('%zz', '%', '+', '%00', '&', '#'), 'verbatim'),
  );
  if (parameter.name === 'cursor')
    return fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('cursor' as const),
          from: fc.constantFrom('same' as const, 'foreign' as const),
          pick: fc.nat(),
        }),
      },
      { weight: 2, arbitrary: forgedCursor },
      { weight: 1, arbitrary: textValue(fc.constantFrom(...CURSOR_GARBAGE)) },
      { weight: 1, arbitrary: hostileText },
    );
  if (parameter.name === 'limit')
    return fc.oneof(
      { weight: 3, arbitrary: textValue(fc.integer({ min: 1, max: 100 }).map(String)) },
      { weight: 3, arbitrary: textValue(fc.constantFrom(...LIMIT_EDGES)) },
      { weight: 1, arbitrary: hostileText },
    );
  if (parameter.schema.format === 'date-time')
    return fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .integer({ min: -400 * 86_400, max: 400 * 86_400 })
          .map((offsetSeconds) => ({ kind: 'instant', offsetSeconds }) as const),
      },
      { weight: 2, arbitrary: textValue(validStringOf(parameter.schema)) },
      { weight: 2, arbitrary: textValue(fc.constantFrom(...INSTANT_EDGES)) },
      { weight: 1, arbitrary: hostileText },
    );
  return fc.oneof(
    { weight: 3, arbitrary: textValue(validStringOf(parameter.schema)) },
    { weight: 2, arbitrary: hostileText },
  );
};

const UNKNOWN_QUERY_NAMES = ['unknown', 'Limit', 'cursor[]', '__proto__', 'agent ', 'a%00'];

/** The query: each documented parameter present or not (required ones mostly present), plus the odd extra. */
const queryPlanOf = (operation: DocumentedOperation): fc.Arbitrary<(readonly [string, QueryValuePlan])[]> => {
  const documented = operation.parameters.filter((parameter) => parameter.in === 'query');
  const present = documented.map((parameter) =>
    fc
      .tuple(fc.double({ min: 0, max: 1, noNaN: true }), queryValueOf(parameter))
      .map(([chance, value]) => (chance < (parameter.required ? 0.9 : 0.5) ? [[parameter.name, value] as const] : [])),
  );
  const extras = fc.oneof(
    { weight: 8, arbitrary: fc.constant<(readonly [string, QueryValuePlan])[]>([]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...UNKNOWN_QUERY_NAMES), canaryText(0, 20))
        .map(([name, text]) => [[name, { kind: 'text', text, encoding: 'component' }] as const]),
    },
    ...(documented.length > 0
      ? [
          {
            // The same documented parameter twice.
            weight: 1,
            arbitrary: fc
              .tuple(fc.constantFrom(...documented), canaryText(0, 20))
              .map(([parameter, text]) => [[parameter.name, { kind: 'text', text, encoding: 'component' }] as const]),
          },
        ]
      : []),
  );
  return fc.tuple(fc.tuple(...present), extras).map(([values, extra]) => [...values.flat(), ...extra]);
};

// ---------------------------------------------------------------------------------------------------------
// Headers

type HeaderPlans = readonly (readonly [string, HeaderValuePlan])[];
const noHeaders = fc.constant<HeaderPlans>([]);

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'application/json;charset=utf-16',
  'application/json-seq',
  'application/jsonx',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  `multipart/form-data; boundary=${CANARY}`,
  '',
  ' application/json',
  'application/json, text/plain',
  '*/*',
  `application/${CANARY}`,
];

const contentTypeOf = (body: BodyPlan): fc.Arbitrary<HeaderPlans> => {
  const header = (text: string): HeaderPlans => [['content-type', { kind: 'text', text }]];
  if (body.kind === 'none')
    return fc.oneof(
      { weight: 6, arbitrary: noHeaders },
      { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES, 'application/json').map(header) },
    );
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(header('application/json')) },
    { weight: 1, arbitrary: noHeaders },
    { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES).map(header) },
  );
};

const ENTITY_TAG_GARBAGE = [
  '*',
  'W/*',
  '"*"',
  '',
  ',',
  ' , ',
  'W/"1-AAAAAAAAAAAA"',
  '"1-AAAAAAAAAAAA"',
  '"99999999999-AAAAAAAAAAAA"',
  '"-1-AAAAAAAAAAAA"',
];

const ifMatchOf = (operation: DocumentedOperation): fc.Arbitrary<HeaderPlans> => {
  const documented = operation.parameters.find(
    (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'if-match',
  );
  const garbage = fc.oneof(
    fc.constantFrom(...ENTITY_TAG_GARBAGE).map((text) => ({ kind: 'text', text }) as const),
    headerCanaryText.map((text) => ({ kind: 'text', text }) as const),
    headerCanaryText.map((text) => ({ kind: 'text', text: `"${text}"` }) as const),
  );
  const tag = fc.constantFrom<EntityTagChoice>(
    'current',
    'current',
    'current',
    'first',
    'other-record',
    'current-lowercase',
    'current-weak',
    'current-in-list',
  );
  if (!documented)
    return fc.oneof(
      { weight: 8, arbitrary: noHeaders },
      { weight: 1, arbitrary: garbage.map((value) => [['if-match', value] as const]) },
    );
  return fc.oneof(
    { weight: documented.required ? 1 : 3, arbitrary: noHeaders },
    { weight: 4, arbitrary: tag.map((which) => [['if-match', { kind: 'entity-tag', which }] as const]) },
    { weight: 2, arbitrary: garbage.map((value) => [['if-match', value] as const]) },
  );
};

/** A key reused across runs: its second use with another request is the 409 case. */
const REUSED_IDEMPOTENCY_KEY = 'fuzz-reused-key';

const idempotencyKeyOf = (operation: DocumentedOperation): fc.Arbitrary<HeaderPlans> => {
  const documented = operation.parameters.some(
    (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
  );
  const header = (text: string): HeaderPlans => [['idempotency-key', { kind: 'text', text }]];
  const garbage = fc.oneof(
    headerCanaryText.map(header),
    fc.integer({ min: 129, max: 400 }).map((length) => header(`${CANARY}${'k'.repeat(length)}`)),
    fc.constantFrom('', ' ', `${CANARY} x`, `${CANARY}/x`, `${CANARY}\u00e9`).map(header),
  );
  if (!documented) return fc.oneof({ weight: 8, arbitrary: noHeaders }, { weight: 1, arbitrary: garbage });
  return fc.oneof(
    { weight: 3, arbitrary: noHeaders },
    { weight: 3, arbitrary: fc.constant(header(`${CANARY}-key`)) },
    { weight: 1, arbitrary: fc.constant(header(REUSED_IDEMPOTENCY_KEY)) },
    { weight: 2, arbitrary: garbage },
  );
};

const JUNK_HEADERS: readonly (readonly [string, string])[] = [
  ['accept', 'text/html'],
  ['accept', `application/${CANARY}`],
  ['accept-encoding', 'gzip, br'],
  ['x-forwarded-for', CANARY],
  ['x-amzn-trace-id', `Root=${CANARY}`],
  ['cookie', `session=${CANARY}`],
  ['origin', `https://${CANARY}.example`],
  ['x-http-method-override', 'DELETE'],
];

const junkHeaders = fc.oneof(
  { weight: 6, arbitrary: noHeaders },
  {
    weight: 1,
    arbitrary: fc
      .subarray([...JUNK_HEADERS], { minLength: 1, maxLength: 3 })
      .map((headers) => headers.map(([name, text]) => [name, { kind: 'text', text }] as const)),
  },
);

// ---------------------------------------------------------------------------------------------------------
// The whole request

export interface RequestArbitraryOptions {
  /** Path parameters with a real value in the fixtures (a record the caller owns). */
  readonly fixtureParameters: ReadonlySet<string>;
  /** Token kinds to draw from, each with its weight. */
  readonly tokenKinds: readonly { readonly kind: string; readonly weight: number }[];
}

const AUTHORIZATION_FORMS = fc.oneof(
  { weight: 12, arbitrary: fc.constant<AuthorizationForm>('bearer') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<AuthorizationForm>('lower-case-scheme', 'two-spaces', 'no-scheme', 'trailing-space'),
  },
);

/** Plans for one operation of the document: every documented parameter, header and body, valid and not. */
export const requestPlanOf = (
  document: OpenApiDocument,
  operation: DocumentedOperation,
  options: RequestArbitraryOptions,
): fc.Arbitrary<RequestPlan> => {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  const path = fc.record(
    Object.fromEntries(
      pathParameters.map((parameter) => [
        parameter.name,
        pathSegmentOf(parameter, options.fixtureParameters.has(parameter.name)),
      ]),
    ),
  );
  const token = fc.record({
    kind: fc.oneof(...options.tokenKinds.map(({ kind, weight }) => ({ weight, arbitrary: fc.constant(kind) }))),
    form: AUTHORIZATION_FORMS,
  });
  const hostile = fc
    .tuple(
      token,
      path,
      queryPlanOf(operation),
      bodyPlanOf(document, operation),
      ifMatchOf(operation),
      idempotencyKeyOf(operation),
      junkHeaders,
    )
    .chain(([tokenPlan, pathPlan, query, body, ifMatch, idempotencyKey, junk]) =>
      contentTypeOf(body).map(
        (contentType): RequestPlan => ({
          operationId: operation.operationId,
          token: tokenPlan,
          path: pathPlan,
          query,
          headers: [...contentType, ...ifMatch, ...idempotencyKey, ...junk],
          body,
        }),
      ),
    );
  // Hostile in one part and valid in the others reaches deeper than hostile everywhere, which mostly meets
  // the first check; both are drawn.
  const valid = fc.tuple(
    validRequestPlanOf(document, operation, options.fixtureParameters, { optionalQuery: true }),
    fc.constantFrom('owner', 'orgAdmin'),
  );
  const mode = fc.oneof(
    { weight: 2, arbitrary: fc.constant('valid' as const) },
    { weight: 2, arbitrary: fc.constant('token' as const) },
    { weight: 1, arbitrary: fc.constant('path' as const) },
    { weight: 2, arbitrary: fc.constant('query' as const) },
    { weight: 3, arbitrary: fc.constant('content' as const) },
    { weight: 3, arbitrary: fc.constant('everything' as const) },
  );
  return fc.tuple(mode, hostile, valid).map(([part, wild, [tame, kind]]): RequestPlan => {
    const base: RequestPlan = { ...tame, token: { kind, form: 'bearer' } };
    switch (part) {
      case 'valid':
        return base;
      case 'token':
        return { ...base, token: wild.token };
      case 'path':
        return { ...base, path: wild.path };
      case 'query':
        return { ...base, query: wild.query };
      case 'content':
        return { ...base, headers: wild.headers, body: wild.body };
      default:
        return wild;
    }
  });
};

// ---------------------------------------------------------------------------------------------------------
// Request targets a gateway must refuse or route exactly

/** Ways to break or bend a documented path on the request line; each is data for the same few invariants. */
export const TARGET_MUTATIONS: Readonly<Record<string, (path: string) => string>> = {
  bracketAfterDoubleSlash: (path) => `//[${path}`,
  leadingDoubleSlash: (path) => `/${path}`,
  innerDoubleSlash: (path) => path.replace('/v1/', '/v1//'),
  trailingSlash: (path) => `${path}/`,
  absoluteFormBadHost: (path) => `http://%zz${path}`,
  absoluteFormBracketHost: (path) => `http://[${path}`,
  absoluteForm: (path) => `http://localhost${path}`,
  absoluteFormOtherHost: (path) => `https://${CANARY}.example${path}`,
  asterisk: () => '*',
  noLeadingSlash: (path) => path.slice(1),
  fragment: (path) => `${path}#${CANARY}`,
  badEscapeInPath: (path) => `${path}%zz`,
  lonePercent: (path) => `${path}%`,
  badEscapeInQuery: (path) => `${path}?q=%zz${CANARY}`,
  upperCase: (path) => path.toUpperCase(),
  dotSegment: (path) => path.replace('/v1/', '/v1/./'),
  dotDotSegment: (path) => path.replace('/v1/', `/v1/${CANARY}/../`),
  encodedDotDotSegment: (path) => path.replace('/v1/', '/v1/%2e%2e/v1/'),
  backslashes: (path) => path.replaceAll('/', '\\'),
  encodedSlashes: (path) => path.replaceAll('/', '%2F'),
  overlong: (path) => `${path}/${'a'.repeat(8_000)}${CANARY}`,
  encodedNul: (path) => `${path}%00${CANARY}`,
  semicolonParameter: (path) => `${path};${CANARY}`,
  rawLatin1: (path) => `${path}/\u00e9${CANARY}`,
  emptyQuery: (path) => `${path}?`,
  ampersandsOnly: (path) => `${path}?&&=&`,
};

export interface TargetPlan {
  readonly path: string;
  readonly mutation: string;
  readonly method: string;
  /** Where the canary rides when the mutation put none in the target. */
  readonly canaryIn: 'query' | 'header';
}

/** A documented path (parameters filled with a plain word), broken one way, under its method or another. */
export const targetPlanOf = (operations: readonly DocumentedOperation[]): fc.Arbitrary<TargetPlan> =>
  fc
    .record({
      operation: fc.constantFrom(...operations),
      mutation: fc.constantFrom(...Object.keys(TARGET_MUTATIONS)),
      otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'BREW'), {
        freq: 3,
      }),
      canaryIn: fc.constantFrom<'query' | 'header'>('query', 'header'),
    })
    .map(({ operation, mutation, otherMethod, canaryIn }) => ({
      path: operation.path.replaceAll(/\{[^}]+\}/g, 'word'),
      mutation,
      method: otherMethod ?? operation.method,
      canaryIn,
    }));

// ---------------------------------------------------------------------------------------------------------
// Cursors sent where they do not belong

export interface CursorPlan {
  readonly operationId: string;
  readonly cursor: QueryValuePlan;
  /** The listing's other parameters, valid-shaped: a cursor taken under one query and sent with another. */
  readonly others: readonly (readonly [string, QueryValuePlan])[];
}

/** Values a listing accepts for a parameter other than its cursor. */
const steeringValueOf = (parameter: DocumentedParameter): fc.Arbitrary<QueryValuePlan> => {
  if (parameter.name === 'limit') return textValue(fc.integer({ min: 1, max: 100 }).map(String));
  if (parameter.schema.format === 'date-time')
    return fc.oneof(
      fc
        .integer({ min: -400 * 86_400, max: 400 * 86_400 })
        .map((offsetSeconds) => ({ kind: 'instant', offsetSeconds }) as const),
      textValue(validStringOf(parameter.schema)),
    );
  return textValue(validStringOf(parameter.schema));
};

/** A listing of the document, a cursor (its own, another listing's, or forged), and its other parameters. */
export const cursorPlanOf = (listings: readonly DocumentedOperation[]): fc.Arbitrary<CursorPlan> =>
  fc.constantFrom(...listings).chain((operation) =>
    fc.record({
      operationId: fc.constant(operation.operationId),
      cursor: fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant('cursor' as const),
            from: fc.constant('same' as const),
            pick: fc.nat(),
          }),
        },
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant('cursor' as const),
            from: fc.constant('foreign' as const),
            pick: fc.nat(),
          }),
        },
        { weight: 2, arbitrary: forgedCursor },
      ),
      others: fc
        .tuple(
          ...operation.parameters
            .filter((parameter) => parameter.in === 'query' && parameter.name !== 'cursor')
            .map((parameter) =>
              fc
                .option(steeringValueOf(parameter), { freq: 2 })
                .map((value) => (value === null ? [] : [[parameter.name, value] as const])),
            ),
        )
        .map((values) => values.flat()),
    }),
  );

// ---------------------------------------------------------------------------------------------------------
// Requests meant to succeed

/**
 * A request an owner of the fixtures should be able to make: fixtures in the path, required query values, a
 * valid-shaped body and the current ETag. Sweeps send it with every kind of token, or with one part broken.
 */
export const validRequestPlanOf = (
  document: OpenApiDocument,
  operation: DocumentedOperation,
  fixtureParameters: ReadonlySet<string>,
  options: { readonly optionalQuery?: boolean } = {},
): fc.Arbitrary<RequestPlan> => {
  const path = fc.record(
    Object.fromEntries(
      operation.parameters
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => [
          parameter.name,
          fixtureParameters.has(parameter.name)
            ? fc.constant<SegmentPlan>({ kind: 'fixture' })
            : validStringOf(parameter.schema).map(
                (text): SegmentPlan => ({ kind: 'text', text, encoding: 'component' }),
              ),
        ]),
    ),
  );
  const query = fc
    .tuple(
      ...operation.parameters
        .filter((parameter) => parameter.in === 'query' && (parameter.required || options.optionalQuery))
        .map((parameter) => {
          // A listing's own cursor is the one valid cursor there is.
          const value: fc.Arbitrary<QueryValuePlan> =
            parameter.name === 'cursor'
              ? fc.record({ kind: fc.constant('cursor' as const), from: fc.constant('same' as const), pick: fc.nat() })
              : steeringValueOf(parameter);
          const entry = value.map((chosen) => [[parameter.name, chosen] as const]);
          return parameter.required ? entry : fc.oneof(entry, fc.constant([]), fc.constant([]));
        }),
    )
    .map((entries) => entries.flat());
  const body: fc.Arbitrary<BodyPlan> =
    operation.requestBody === undefined
      ? fc.constant({ kind: 'none' })
      : validValueOf(document, operation.requestBody).map((value) => ({ kind: 'json', value }));
  const takesIfMatch = operation.parameters.some(
    (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'if-match',
  );
  return fc.record({ path, query, body }).map(({ path: pathPlan, query: queryPlan, body: bodyPlan }) => ({
    operationId: operation.operationId,
    token: { kind: 'owner', form: 'bearer' },
    path: pathPlan,
    query: queryPlan,
    headers: [
      ...(bodyPlan.kind === 'none' ? [] : [['content-type', { kind: 'text', text: 'application/json' }] as const]),
      ...(takesIfMatch ? [['if-match', { kind: 'entity-tag', which: 'current' }] as const] : []),
    ],
    body: bodyPlan,
  }));
};
