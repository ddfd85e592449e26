import type { SentRequest } from './fuzz-requests.ts';
import { CANARY_MARKER } from './openapi-arbitraries.ts';
import { type OpenApiDocument, schemaViolations } from './openapi-document.ts';
import type { PooledResponse } from './pooled-raw-http.ts';

/*
 * What every response to a fuzzed request must be, whatever the request was: no 5xx; a status the document
 * lists for the operation; an error body in the documented shape; no input value echoed (a canary may come back
 * only on a success, and only one that was stored); and what each kind of token may and may not reach.
 */

/** Statuses only a caller whose token verified can get: a refused token reaching one was let in. */
const PAST_AUTHENTICATION = new Set([403, 409, 412, 422, 428]);

const MARKER = new RegExp(CANARY_MARKER, 'gi');
const FULL_CANARY = new RegExp(`^${CANARY_MARKER}[0-9a-z]{6}`);

export interface OracleContext {
  readonly document: OpenApiDocument;
  /** Canaries stored by earlier requests that succeeded (or may have): a listing may return them. */
  readonly storedBefore: ReadonlySet<string>;
  /** Ids and content of the fixtures, which another tenant's caller must never see. */
  readonly fixtureSecrets: ReadonlySet<string>;
  /** The tenant the fixtures live in. */
  readonly fixtureTenant: string;
}

const excerpt = (text: string, at: number): string => JSON.stringify(text.slice(Math.max(0, at - 40), at + 60));

/** The canaries in `text` that may not be there, each with where it was found. */
const echoes = (text: string, success: boolean, sent: SentRequest, context: OracleContext): string[] => {
  const found: string[] = [];
  for (const match of text.matchAll(MARKER)) {
    const canary = FULL_CANARY.exec(text.slice(match.index))?.[0];
    const legitimate =
      success && canary !== undefined && (sent.storable.has(canary) || context.storedBefore.has(canary));
    if (!legitimate) found.push(excerpt(text, match.index));
  }
  return found;
};

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };

/** What is wrong with an error answer's body: not JSON, or not in `schema` (the document's error shape unless given). */
export const errorBodyViolations = (
  document: OpenApiDocument,
  text: string,
  schema: Parameters<typeof schemaViolations>[1] = ERROR_SCHEMA,
): string[] => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`error body is not JSON: ${JSON.stringify(text.slice(0, 120))}`];
  }
  const problems = schemaViolations(document, schema, body);
  return problems.length > 0 ? [`error body is not in the documented shape: ${problems.slice(0, 4).join('; ')}`] : [];
};

/**
 * `twinStatus`: what the honest twin of a group-smuggling token got for the same request (see
 * `IssuedToken.twinCredentials`).
 */
export const violationsOf = (
  sent: SentRequest,
  response: PooledResponse,
  context: OracleContext,
  twinStatus?: number,
): string[] => {
  const { operation } = sent;
  const { status } = response;
  const success = status >= 200 && status < 300;
  const violations: string[] = [];

  if (status >= 500 || status < 200) violations.push(`answered ${status}, a server error`);
  const refusedAsMalformed = status === 400 && !sent.wellFormedTarget;
  if (sent.routesToOperation && !operation.responses.has(status) && !refusedAsMalformed)
    violations.push(
      `answered ${status}, which ${operation.operationId} does not document (it lists ${[...operation.responses.keys()].join(', ')})`,
    );

  if (status >= 400) {
    const contentType = String(response.headers['content-type'] ?? '');
    if (!/^application\/json\b/i.test(contentType))
      violations.push(`error answered with content-type ${JSON.stringify(contentType)}`);
    const schema = operation.responses.get(status) ?? ERROR_SCHEMA;
    violations.push(...errorBodyViolations(context.document, response.text, schema));
  } else if (success && response.text.length > 0) {
    const schema = operation.responses.get(status);
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      violations.push(`success body is not JSON: ${JSON.stringify(response.text.slice(0, 120))}`);
    }
    if (schema && body !== undefined) {
      const problems = schemaViolations(context.document, schema, body);
      if (problems.length > 0)
        violations.push(`success body breaks its documented schema: ${problems.slice(0, 4).join('; ')}`);
    }
  }

  const headerText = Object.entries(response.headers)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : value}`)
    .join('\n');
  for (const where of echoes(response.text, success, sent, context)) violations.push(`the body echoes input: ${where}`);
  for (const where of echoes(headerText, success, sent, context)) violations.push(`a header echoes input: ${where}`);

  if (operation.authenticated) {
    switch (sent.tokenExpectation) {
      case 'refused':
        if (success || PAST_AUTHENTICATION.has(status)) violations.push(`a token that must be refused got ${status}`);
        break;
      case 'accepted':
        if (status === 401) violations.push('a valid token was refused (401)');
        break;
      case 'no-role':
        if (success && twinStatus !== undefined && !(twinStatus >= 200 && twinStatus < 300))
          violations.push(
            `a group claim smuggled a role: ${status}, where the same principal without groups gets ${twinStatus}`,
          );
        break;
      case 'read-only':
        if (success && operation.method !== 'GET') violations.push(`a read-only token wrote (${status})`);
        break;
      case 'neutral':
        break;
    }
  }

  if (sent.encodedDotSegment && success)
    violations.push(
      `a percent-encoded dot segment was taken for path structure (${status}): it is data and names nothing`,
    );

  // A name the caller sent itself (a guardrail key of its own) is not a leak, even when a fixture has it too.
  const sentText = `${sent.target}\n${sent.body?.toString('utf8') ?? ''}`;
  if (success && sent.tenant !== undefined && sent.tenant !== context.fixtureTenant)
    for (const secret of context.fixtureSecrets)
      if (response.text.includes(secret) && !sentText.includes(secret))
        violations.push(`another tenant's caller saw a fixture of tenant ${context.fixtureTenant}: ${secret}`);

  return violations;
};
