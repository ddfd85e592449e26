import { createHash } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type * as z from 'zod';
import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import { NotFoundError, ValidationFailedError, type ValidationIssue } from '../../kernel/errors/domain-error.ts';
import type { Scope } from '../../kernel/identity/scope.ts';
import { unbindCursor } from '../../kernel/records/page-cursor.ts';
import type { ApiEvent, ApiResult, OperationInput } from '../api-event.ts';
import { SafeName } from '../api-schemas.ts';
import { httpSettings } from '../http-config.ts';
import { REDACTED_KEY, shownIssuePath } from '../issue-paths.ts';
import { listingOf } from '../listing-cursors.ts';
import { NoBody, type Operation, routeKeyOf } from '../operation.ts';
import {
  IfMatchWildcardError,
  InvalidJsonError,
  PayloadTooLargeError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
} from '../request.errors.ts';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,128}$/;
/** What an unknown field's name may look like to be repeated in an error: short, and a plain identifier. */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/**
 * Validates everything that crosses the trust boundary before the handler runs: size, JSON, path, query
 * and body against the operation's zod schemas (unknown fields refused), a listing's cursor against the
 * listing, If-Match and Idempotency-Key.
 */
export const validatedRequest = (operation: Operation, config: ConfigProvider): MiddlewareObj<ApiEvent, ApiResult> => {
  const routes = new Map(operation.routes.map((route) => [routeKeyOf(route), route]));
  const projectParams = operation.params.extend({ projectId: SafeName });
  const isListing = Object.hasOwn(operation.query.shape, 'cursor');
  return {
    name: 'validated-request',
    before: (request) => {
      const event = request.event;
      const route = routes.get(event.routeKey);
      if (!route) throw new RouteNotFoundError();
      const headers = lowerCaseKeys(event.headers ?? {});

      // A malformed path segment names nothing that exists: the same 404 as any absent record.
      const params = (route.project ? projectParams : operation.params).safeParse(event.pathParameters ?? {});
      if (!params.success) throw new NotFoundError();
      const parsedQuery = parsed(operation.query, event.queryStringParameters ?? {}, 'query');
      // Runs after authentication: a listing is the caller's own.
      const listing = isListing
        ? listingOf(route, (event as { scope?: Scope }).scope, params.data, parsedQuery)
        : undefined;
      const query =
        listing !== undefined && typeof parsedQuery.cursor === 'string'
          ? { ...parsedQuery, cursor: unbindCursor(parsedQuery.cursor, listing) }
          : parsedQuery;
      const body = parsed(
        operation.body,
        readBody(event, headers, operation, httpSettings.of(config.current()).maxBodyBytes),
        'body',
      );

      let idempotency: OperationInput<Operation>['idempotency'];
      const key = headers['idempotency-key'];
      if (operation.idempotent && key !== undefined) {
        if (!IDEMPOTENCY_KEY.test(key)) {
          throw new ValidationFailedError('Invalid Idempotency-Key', [
            { path: 'Idempotency-Key', message: 'must be 1-128 characters of A-Z, a-z, 0-9, _, ., : or -' },
          ]);
        }
        const fingerprint = createHash('sha256')
          .update(JSON.stringify([route.operationId, params.data, query, body]))
          .digest('base64url');
        idempotency = { key, fingerprint };
      }
      const ifMatch = operation.requiresIfMatch || operation.acceptsIfMatch ? headers['if-match'] : undefined;
      // `If-Match: *` matches any revision: honouring it would be last-writer-wins, which never happens here.
      if (ifMatch?.split(',').some((member) => member.trim() === '*')) throw new IfMatchWildcardError();
      const input: OperationInput<Operation> = {
        route,
        params: params.data,
        query,
        body,
        ifMatch,
        idempotency,
        listing,
      };
      Object.assign(event, { input });
    },
  };
};

const readBody = (
  event: ApiEvent,
  headers: Record<string, string>,
  operation: Operation,
  maxBodyBytes: number,
): unknown => {
  const raw =
    event.body === undefined
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  if (Buffer.byteLength(raw, 'utf8') > maxBodyBytes) throw new PayloadTooLargeError(maxBodyBytes);
  if (raw.length === 0) return undefined;
  if (operation.body === NoBody) {
    throw new ValidationFailedError('This operation takes no request body', [{ path: 'body', message: 'not allowed' }]);
  }
  const contentType = headers['content-type'];
  if (contentType !== undefined && !/^application\/(.+\+)?json\b/i.test(contentType))
    throw new UnsupportedMediaTypeError();
  try {
    return JSON.parse(raw);
  } catch {
    throw new InvalidJsonError();
  }
};

const parsed = <S extends z.ZodType>(schema: S, value: unknown, part: 'query' | 'body'): z.infer<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) => describe(issue, schema, part, value));
  throw new ValidationFailedError(`The request ${part} is invalid`, issues);
};

/** Names the failing fields without echoing their values, nor the keys of a map (those are values too). */
const describe = (
  issue: z.core.$ZodIssue,
  schema: z.ZodType,
  part: 'query' | 'body',
  input: unknown,
): ValidationIssue[] => {
  const path = [part, ...shownIssuePath(schema, issue.path)].join('.');
  if (issue.code === 'invalid_key') return [{ path, message: 'invalid key' }];
  if (issue.code === 'unrecognized_keys') {
    // A schema that explains why a field does not belong (a guardrail's `default` on `deny`) keeps its word.
    const explained = !issue.message.startsWith('Unrecognized key');
    // An unknown field is named (a typo is easier to fix so), unless its name could be anything but a name.
    return issue.keys.map((key) => ({
      path: `${path}.${FIELD_NAME.test(key) ? key : REDACTED_KEY}`,
      message: explained ? issue.message : 'unknown field',
    }));
  }
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return [{ path, message: 'required' }];
  return [{ path, message: issue.message }];
};

const valueAt = (value: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((current, key) => (current as Record<PropertyKey, unknown> | undefined)?.[key], value);

const lowerCaseKeys = (headers: Record<string, string | undefined>): Record<string, string> => {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) lowered[name.toLowerCase()] = value;
  return lowered;
};
