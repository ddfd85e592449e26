import * as z from 'zod';
import { Cursor, ErrorResponse, PageSize, Provenance } from '../../../http/api-schemas.ts';
import { scopedFailures } from '../../../http/common-responses.ts';
import { etagOf } from '../../../http/entity-tags.ts';
import {
  defineOperation,
  type HttpMethod,
  NoBody,
  NoParams,
  NoQuery,
  type ResponseSpec,
  type RouteVariant,
} from '../../../http/operation.ts';
import { Guardrail, GuardrailKey } from '../guardrail.schema.ts';
import type { GuardrailView } from '../guardrails-service.ts';

const ENTRY = 'lambdas/capabilities/guardrails/guardrails.lambda.ts';

export const GuardrailResponse = z
  .object({
    key: z.string(),
    scope: z.enum(['organisation', 'project']),
    projectId: z.string().optional(),
    guardrail: Guardrail,
    revision: z.number().int(),
    etag: z.string(),
    provenance: Provenance,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Guardrail' });

const GuardrailPage = z
  .object({ items: z.array(GuardrailResponse), nextCursor: z.string().optional() })
  .meta({ id: 'GuardrailPage' });

const KeyParams = z.object({ key: GuardrailKey }).strict();
const PageQuery = z.object({ limit: PageSize.optional(), cursor: Cursor.optional() }).strict();

/** The organisation's guardrails, and each project's (which can only narrow the organisation's). */
const bothSpaces = (operationId: string, method: HttpMethod, suffix: string): RouteVariant[] => [
  { operationId, method, path: `/v1/guardrails${suffix}`, project: false },
  {
    operationId: operationId.replace(/Guardrail/, 'ProjectGuardrail'),
    method,
    path: `/v1/projects/{projectId}/guardrails${suffix}`,
    project: true,
  },
];

const failures = scopedFailures('No such guardrail, or a project the caller is not a member of');

const forbidden = {
  403: {
    description:
      "Only org admins manage the organisation's guardrails, and only a project's admins its own; and only through a client holding memory-hub/memory.admin (code auth.insufficient_scope)",
    schema: ErrorResponse,
  },
} satisfies Record<number, ResponseSpec>;

export const putGuardrail = defineOperation({
  summary: 'Set a guardrail on a key (create, or replace under If-Match)',
  tag: 'guardrails',
  routes: bothSpaces('putGuardrail', 'PUT', '/{key}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.admin',
  lambda: { entry: ENTRY, handler: 'putGuardrail', access: 'write' },
  params: KeyParams,
  query: NoQuery,
  body: Guardrail,
  acceptsIfMatch: true,
  responses: {
    200: { description: 'Replaced', schema: GuardrailResponse, headers: ['ETag'] },
    201: { description: 'Created', schema: GuardrailResponse, headers: ['ETag', 'Location'] },
    ...forbidden,
    409: {
      description: "A project guardrail the organisation's guardrail on the key would set aside",
      schema: ErrorResponse,
    },
    412: {
      description: 'If-Match is stale (the current ETag is in the ETag header) or the guardrail does not exist',
      schema: ErrorResponse,
      headers: ['ETag'],
    },
    428: { description: 'The guardrail exists: If-Match is required to replace it', schema: ErrorResponse },
    ...failures,
  },
});

export const getGuardrail = defineOperation({
  summary: 'Read a guardrail',
  tag: 'guardrails',
  routes: bothSpaces('getGuardrail', 'GET', '/{key}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: { entry: ENTRY, handler: 'getGuardrail', access: 'read' },
  params: KeyParams,
  query: NoQuery,
  body: NoBody,
  responses: { 200: { description: 'The guardrail', schema: GuardrailResponse, headers: ['ETag'] }, ...failures },
});

export const listGuardrails = defineOperation({
  summary: 'List guardrails in key order',
  tag: 'guardrails',
  routes: bothSpaces('listGuardrails', 'GET', ''),
  authenticated: true,
  requiredScope: 'memory-hub/memory.read',
  lambda: { entry: ENTRY, handler: 'listGuardrails', access: 'read' },
  params: NoParams,
  query: PageQuery,
  body: NoBody,
  responses: { 200: { description: 'A page of guardrails', schema: GuardrailPage }, ...failures },
});

export const deleteGuardrail = defineOperation({
  summary: 'Remove a guardrail (appends a tombstone revision)',
  tag: 'guardrails',
  routes: bothSpaces('deleteGuardrail', 'DELETE', '/{key}'),
  authenticated: true,
  requiredScope: 'memory-hub/memory.admin',
  lambda: { entry: ENTRY, handler: 'deleteGuardrail', access: 'write' },
  params: KeyParams,
  query: NoQuery,
  body: NoBody,
  requiresIfMatch: true,
  responses: {
    204: { description: 'Removed' },
    ...forbidden,
    ...failures,
  },
});

/** In the order the OpenAPI document lists them. */
export const GUARDRAILS_OPERATIONS = [putGuardrail, getGuardrail, listGuardrails, deleteGuardrail] as const;

export const toGuardrailResponse = (view: GuardrailView): z.input<typeof GuardrailResponse> => ({
  key: view.id,
  scope: view.owner.type === 'project' ? 'project' : 'organisation',
  ...(view.owner.type === 'project' && { projectId: view.owner.projectId }),
  guardrail: view.content as Guardrail,
  revision: view.revision,
  etag: etagOf(view.id, view.revision),
  provenance: view.provenance,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
});

export const guardrailLocation = (view: GuardrailView): string =>
  view.owner.type === 'project'
    ? `/v1/projects/${view.owner.projectId}/guardrails/${view.id}`
    : `/v1/guardrails/${view.id}`;
