import {
  type FixtureKind,
  type FuzzWorld,
  fixtureKindOf,
  recordKindOf,
  TOKEN_KINDS,
  type TokenExpectation,
} from './fuzz-fixtures.ts';
import { CANARY, CANARY_MARKER, type RequestPlan, type SegmentPlan } from './openapi-arbitraries.ts';
import type { DocumentedOperation } from './openapi-document.ts';
import type { PooledRequest } from './pooled-raw-http.ts';

/*
 * Turns a generated plan into the bytes of one request: fresh canaries where the plan holds CANARY, fixture ids,
 * ETags and cursors looked up in the world, and every part encoded the way the plan says.
 */

/** Hands out canaries, each once: the marker and six base-36 digits. */
export class CanaryMint {
  #next = 0;

  fresh(): string {
    return `${CANARY_MARKER}${(this.#next++).toString(36).padStart(6, '0')}`;
  }
}

export interface SentRequest extends PooledRequest {
  readonly operation: DocumentedOperation;
  /**
   * Canaries the service may keep and return on a success (body, path, names in the query, claims of a token
   * that verifies). Every other canary (headers, cursors, page sizes, instants, refused tokens) must never
   * come back.
   */
  readonly storable: ReadonlySet<string>;
  /**
   * The storable canaries in the claims of a token that verifies: the audit trail keeps the actor of a refused
   * request too, so these count as stored whatever the status.
   */
  readonly claims: ReadonlySet<string>;
  readonly tokenExpectation: TokenExpectation;
  /** The tenant of a token that verifies; responses to another tenant than the fixtures' must not show them. */
  readonly tenant: string | undefined;
  /** A path parameter was a percent-encoded dot segment: data, which names no record. */
  readonly encodedDotSegment: boolean;
  /** Every path parameter filled one whole, non-empty, non-dot segment: the request routes to the operation. */
  readonly routesToOperation: boolean;
  /**
   * The target is one RFC 3986 allows (no raw `#`, space or non-ASCII, every `%` an escape): a gateway may refuse
   * any other with a 400 before it reaches an operation.
   */
  readonly wellFormedTarget: boolean;
  /** The fixtures named in the path. */
  readonly fixtures: readonly FixtureKind[];
  /** Which token of the catalogue the Authorization header carries, and in which form. */
  readonly tokenDescription: string;
  /** The same request with a group-smuggling token's honest twin (see `IssuedToken.twinCredentials`). */
  readonly twin?: PooledRequest;
}

/** Query parameters that only steer a listing; what they carry is never stored. */
const STEERING_QUERY = new Set(['cursor', 'limit', 'since']);

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes UTF-8 bytes (lone surrogates become U+FFFD, as a client would send them). */
export const percentEncoded = (text: string, everyByte = false): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return !everyByte && byte < 0x80 && UNRESERVED.test(char)
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');

const DOT_SEGMENT = /^\.{1,2}$/;

/** Origin-form with path and query made of RFC 3986 characters and valid percent-escapes only. */
const WELL_FORMED_TARGET = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;

/** RFC 3986 characters only, and every percent-escaped sequence UTF-8 (`%C0%AF` is not: an overlong `/`). */
const isWellFormedTarget = (target: string): boolean => {
  if (!WELL_FORMED_TARGET.test(target)) return false;
  try {
    decodeURIComponent(target);
    return true;
  } catch {
    return false;
  }
};

const decodesToDots = (encoded: string): boolean => {
  try {
    return DOT_SEGMENT.test(decodeURIComponent(encoded));
  } catch {
    return false;
  }
};

const AUTHORIZATION_FORMS: Readonly<Record<string, (credentials: string) => string>> = {
  bearer: (credentials) => `Bearer ${credentials}`,
  'lower-case-scheme': (credentials) => `bearer ${credentials}`,
  'two-spaces': (credentials) => `Bearer  ${credentials}`,
  'no-scheme': (credentials) => credentials,
  'trailing-space': (credentials) => `Bearer ${credentials} `,
};

/** Replaces CANARY in strings and property names, keeping `__proto__` an own property as JSON.parse would. */
const filledJson = (value: unknown, fill: (text: string) => string): unknown => {
  if (typeof value === 'string') return fill(value);
  if (Array.isArray(value)) return value.map((item) => filledJson(item, fill));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value))
    Object.defineProperty(copy, fill(key), {
      value: filledJson(field, fill),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
};

export const materialized = async (
  plan: RequestPlan,
  operation: DocumentedOperation,
  world: FuzzWorld,
  mint: CanaryMint,
): Promise<SentRequest> => {
  const storable = new Set<string>();
  const claims = new Set<string>();
  const fill = (text: string, keep: boolean): string =>
    text.replaceAll(CANARY, () => {
      const canary = mint.fresh();
      if (keep) storable.add(canary);
      return canary;
    });

  // Path
  let target = operation.path;
  let encodedDotSegment = false;
  let routesToOperation = true;
  const fixtures: FixtureKind[] = [];
  for (const [name, segment] of Object.entries(plan.path) as [string, SegmentPlan][]) {
    let encoded: string;
    if (segment.kind === 'fixture') {
      const kind = fixtureKindOf(operation.path, name);
      if (!kind) throw new Error(`no fixture for ${name} in ${operation.path}`);
      fixtures.push(kind);
      encoded = percentEncoded(await world.value(kind));
    } else {
      const text = fill(segment.text, true);
      encoded = segment.encoding === 'verbatim' ? text : percentEncoded(text, segment.encoding === 'every-byte');
      if (encoded.includes('%') && decodesToDots(encoded)) encodedDotSegment = true;
      if (encoded.length === 0 || DOT_SEGMENT.test(encoded) || encodedDotSegment || encoded.includes('/'))
        routesToOperation = false;
    }
    target = target.replace(`{${name}}`, encoded);
  }

  // Query
  const pairs: string[] = [];
  for (const [name, value] of plan.query) {
    const keep =
      !STEERING_QUERY.has(name) &&
      operation.parameters.some((parameter) => parameter.in === 'query' && parameter.name === name);
    let encoded: string;
    switch (value.kind) {
      case 'text': {
        const text = fill(value.text, keep);
        encoded = value.encoding === 'verbatim' ? text : percentEncoded(text);
        break;
      }
      case 'cursor':
        encoded = percentEncoded(
          world.cursor(operation.operationId, value.from, value.pick) ??
            Buffer.from('{"v":1,"p":""}').toString('base64url'),
        );
        break;
      case 'forged-cursor':
        encoded = Buffer.from(JSON.stringify(filledJson(value.payload, (text) => fill(text, false))), 'utf8').toString(
          'base64url',
        );
        break;
      case 'instant':
        encoded = percentEncoded(new Date(Date.now() + value.offsetSeconds * 1000).toISOString());
        break;
    }
    pairs.push(`${percentEncoded(name)}=${encoded}`);
  }
  if (pairs.length > 0) target += `?${pairs.join('&')}`;

  // Headers
  const headers: [string, string][] = [];
  const tokenKind = TOKEN_KINDS[plan.token.kind];
  if (!tokenKind) throw new Error(`no token kind ${plan.token.kind}`);
  // Claims of a token the service must refuse are never kept, so they must never come back either.
  const issued = await tokenKind.issue(
    world,
    (text, keep) => {
      const filled = fill(text, keep && tokenKind.expectation !== 'refused');
      if (keep && tokenKind.expectation !== 'refused')
        for (const canary of storable) if (filled.includes(canary)) claims.add(canary);
      return filled;
    },
    operation,
  );
  const form = AUTHORIZATION_FORMS[plan.token.form] ?? AUTHORIZATION_FORMS.bearer;
  if (issued.header !== undefined) headers.push(['authorization', issued.header]);
  else if (issued.credentials !== undefined && form) headers.push(['authorization', form(issued.credentials)]);
  for (const [name, value] of plan.headers) {
    if (value.kind === 'text') headers.push([name, fill(value.text, false)]);
    else headers.push([name, await world.entityTag(recordKindOf(operation), value.which)]);
  }

  // Body
  let body: Buffer | undefined;
  switch (plan.body.kind) {
    case 'none':
      break;
    case 'json':
      body = Buffer.from(JSON.stringify(filledJson(plan.body.value, (text) => fill(text, true))) ?? 'null', 'utf8');
      break;
    case 'raw':
      body = Buffer.from(fill(plan.body.text, true), 'utf8');
      break;
    case 'bytes':
      body = Buffer.concat([
        Buffer.from(plan.body.hexBefore, 'hex'),
        Buffer.from(fill(`{"text":"${CANARY}"}`, true), 'utf8'),
        Buffer.from(plan.body.hexAfter, 'hex'),
      ]);
      break;
    case 'huge':
      body = Buffer.from(`{"text":"${fill(CANARY, true)}${'a'.repeat(Math.max(0, plan.body.bytes - 30))}"}`, 'utf8');
      break;
  }

  const twin =
    issued.twinCredentials === undefined
      ? undefined
      : {
          method: operation.method,
          target,
          headers: headers.map(([name, value]): [string, string] =>
            name === 'authorization' && form ? [name, form(issued.twinCredentials as string)] : [name, value],
          ),
          ...(body !== undefined && { body }),
        };
  const expectation: TokenExpectation =
    tokenKind.expectation === 'accepted' && plan.token.form !== 'bearer' ? 'neutral' : tokenKind.expectation;
  return {
    operation,
    method: operation.method,
    target,
    headers,
    ...(body !== undefined && { body }),
    storable,
    tokenExpectation: expectation,
    tenant: tokenKind.expectation === 'refused' ? undefined : issued.tenant,
    encodedDotSegment,
    routesToOperation,
    wellFormedTarget: isWellFormedTarget(target),
    claims,
    fixtures,
    tokenDescription: `${plan.token.kind} token (${tokenKind.expectation}), ${plan.token.form} form`,
    ...(twin && { twin }),
  };
};

/** A request as a failure message shows it: enough to replay it with curl, bodies cut short. */
export const describedRequest = (sent: PooledRequest & { readonly tokenDescription?: string }): string => {
  const body = sent.body?.toString('utf8') ?? '';
  const shown = body.length > 400 ? `${body.slice(0, 400)}… (${body.length} bytes)` : body;
  return [
    ...(sent.tokenDescription ? [`# ${sent.tokenDescription}`] : []),
    `${sent.method} ${sent.target.length > 400 ? `${sent.target.slice(0, 400)}…` : sent.target}`,
    ...sent.headers.map(([name, value]) => `${name}: ${value.length > 120 ? `${value.slice(0, 120)}…` : value}`),
    ...(shown ? ['', shown] : []),
  ].join('\n');
};

/** A request built by hand (not from a plan) as the oracle sees it: a token that verifies, nothing planted. */
export const handBuiltRequest = (operation: DocumentedOperation, request: PooledRequest): SentRequest => ({
  ...request,
  operation,
  storable: new Set(),
  tokenExpectation: 'accepted',
  tenant: 'acme',
  encodedDotSegment: false,
  routesToOperation: true,
  wellFormedTarget: isWellFormedTarget(request.target),
  claims: new Set(),
  fixtures: [],
  tokenDescription: 'a token that verifies',
});
