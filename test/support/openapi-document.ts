import { readFileSync } from 'node:fs';

/*
 * The committed OpenAPI document read as data, for tests that must follow it wherever it goes: the list of
 * operations (so a new one is covered the day it is added) and a small JSON Schema check for the subset of
 * keywords `z.toJSONSchema` writes.
 */

export type JsonSchema = {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly JsonSchema[];
  readonly anyOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
  readonly format?: string;
};

export interface DocumentedParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly schema: JsonSchema;
}

export interface DocumentedOperation {
  readonly operationId: string;
  readonly method: string;
  /** The path template, e.g. `/v1/notes/{id}`. */
  readonly path: string;
  readonly authenticated: boolean;
  readonly parameters: readonly DocumentedParameter[];
  /** The JSON body schema; undefined when the operation documents no request body. */
  readonly requestBody: JsonSchema | undefined;
  /** Every status the document lists for the operation, with its body schema where it has one. */
  readonly responses: ReadonlyMap<number, JsonSchema | undefined>;
}

interface RawOperation {
  operationId: string;
  security?: unknown[];
  parameters?: DocumentedParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, RawOperation>>>>;
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> };
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

export const readOpenApiDocument = (
  path = new URL('../../lambdas/generated/openapi.json', import.meta.url),
): OpenApiDocument => JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument;

/** Every path + method of the document, in document order. */
export const documentedOperations = (document: OpenApiDocument): DocumentedOperation[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        authenticated: (operation.security ?? []).length > 0,
        parameters: operation.parameters ?? [],
        requestBody: operation.requestBody?.content?.['application/json']?.schema,
        responses: new Map(
          Object.entries(operation.responses ?? {}).map(([status, response]) => [
            Number(status),
            response.content?.['application/json']?.schema,
          ]),
        ),
      })),
  );

/** Follows `#/components/schemas/…` references. */
export const resolved = (document: OpenApiDocument, schema: JsonSchema): JsonSchema => {
  let current = schema;
  for (let hops = 0; current.$ref !== undefined; hops++) {
    const name = current.$ref.replace('#/components/schemas/', '');
    const target = document.components.schemas[name];
    if (!target || hops > 20) throw new Error(`Unresolvable schema reference ${current.$ref}`);
    current = target;
  }
  return current;
};

const typeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

const hasType = (value: unknown, type: string): boolean =>
  typeOf(value) === type || (type === 'number' && typeOf(value) === 'integer');

/**
 * What in `value` breaks `schema`, as JSON-pointer-ish paths with the broken keyword; empty when it conforms.
 * Covers the keywords the generated document uses; `format` is left to the `pattern` zod writes beside it.
 */
export const schemaViolations = (document: OpenApiDocument, schema: JsonSchema, value: unknown, at = '$'): string[] => {
  const s = resolved(document, schema);
  const problems: string[] = [];
  if (s.oneOf || s.anyOf) {
    const variants = (s.oneOf ?? s.anyOf) as readonly JsonSchema[];
    const matching = variants.filter((variant) => schemaViolations(document, variant, value, at).length === 0).length;
    if (s.oneOf ? matching !== 1 : matching === 0) problems.push(`${at}: ${s.oneOf ? 'oneOf' : 'anyOf'}`);
  }
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) problems.push(`${at}: const`);
  if (s.enum && !s.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    problems.push(`${at}: enum`);
  if (s.type !== undefined) {
    const types = typeof s.type === 'string' ? [s.type] : s.type;
    if (!types.some((type) => hasType(value, type))) return [...problems, `${at}: type ${types.join('|')}`];
  }
  if (typeof value === 'string') {
    if (s.minLength !== undefined && value.length < s.minLength) problems.push(`${at}: minLength`);
    if (s.maxLength !== undefined && value.length > s.maxLength) problems.push(`${at}: maxLength`);
    if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) problems.push(`${at}: pattern`);
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) problems.push(`${at}: minimum`);
    if (s.maximum !== undefined && value > s.maximum) problems.push(`${at}: maximum`);
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) problems.push(`${at}: minItems`);
    if (s.maxItems !== undefined && value.length > s.maxItems) problems.push(`${at}: maxItems`);
    if (s.items) {
      const items = s.items;
      for (const [index, item] of value.entries())
        problems.push(...schemaViolations(document, items, item, `${at}[${index}]`));
    }
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of s.required ?? []) if (!Object.hasOwn(object, name)) problems.push(`${at}.${name}: required`);
    for (const [name, field] of Object.entries(object)) {
      const declared = s.properties?.[name];
      if (declared) problems.push(...schemaViolations(document, declared, field, `${at}.${name}`));
      else if (s.additionalProperties === false) problems.push(`${at}.${name}: additionalProperties`);
      else if (typeof s.additionalProperties === 'object') {
        if (s.propertyNames) problems.push(...schemaViolations(document, s.propertyNames, name, `${at}.${name}(name)`));
        problems.push(...schemaViolations(document, s.additionalProperties, field, `${at}.${name}`));
      }
    }
  }
  return problems;
};
