import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

const BASE_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

export const jsonResponse = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { ...BASE_HEADERS, ...headers },
  body: JSON.stringify(body),
});

export const ok = (body: unknown, headers: { etag?: string } = {}): APIGatewayProxyStructuredResultV2 =>
  jsonResponse(200, body, headers.etag ? { ETag: headers.etag } : {});

export const created = (
  body: unknown,
  headers: { etag: string; location: string; replayed: boolean },
): APIGatewayProxyStructuredResultV2 =>
  jsonResponse(201, body, {
    ETag: headers.etag,
    Location: headers.location,
    ...(headers.replayed && { 'Idempotent-Replayed': 'true' }),
  });

export const noContent = (): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 204,
  headers: { 'Cache-Control': 'no-store' },
});

export const accepted = (body: unknown, headers: { location: string }): APIGatewayProxyStructuredResultV2 =>
  jsonResponse(202, body, { Location: headers.location });
