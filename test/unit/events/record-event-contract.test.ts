import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RecordEventContract as RecordEvent } from '../../../lambdas/app/service-tables.ts';

type Schema = {
  type?: string | string[];
  enum?: string[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
};

const definitionOf = (document: { $defs?: Record<string, Schema> }): Schema =>
  document.$defs?.RecordEventV1 ?? (document as Schema);

const baseline = definitionOf(JSON.parse(readFileSync('lambdas/kernel/events/record-event.v1.baseline.json', 'utf8')));
const current = () => definitionOf(z.toJSONSchema(RecordEvent, { io: 'input' }) as never);

/**
 * What a reader of version 1 relies on: every field it knows is still there with the same type, the values
 * it knows are still valid (enumerations may grow), no field it does not send became required, and the
 * version stays 1. Returns the breaks found.
 */
const breakingChanges = (before: Schema, after: Schema, path = ''): string[] => {
  const breaks: string[] = [];
  if (JSON.stringify(before.type) !== JSON.stringify(after.type)) {
    breaks.push(`${path || 'event'}: type ${before.type} became ${after.type}`);
  }
  if (before.const !== undefined && before.const !== after.const) breaks.push(`${path}: constant changed`);
  if (before.enum && !before.enum.every((value) => after.enum?.includes(value)))
    breaks.push(`${path}: an allowed value was removed`);
  for (const [name, property] of Object.entries(before.properties ?? {})) {
    const next = after.properties?.[name];
    if (!next) breaks.push(`${path}${name}: removed`);
    else breaks.push(...breakingChanges(property, next, `${path}${name}.`));
  }
  for (const name of after.required ?? []) {
    if (!(before.required ?? []).includes(name)) breaks.push(`${path}${name}: became required`);
  }
  return breaks;
};

describe('Contract: record event v1', () => {
  it('has no breaking change against the frozen v1 baseline', () => {
    expect(breakingChanges(baseline, current())).toEqual([]);
  });

  it('would catch the breaking changes it guards against', () => {
    const renamed = { ...baseline, properties: { ...baseline.properties } };
    delete renamed.properties?.record_id;
    const retyped = { ...baseline, properties: { ...baseline.properties, revision: { type: 'string' } } };
    const stricter = { ...baseline, required: [...(baseline.required ?? []), 'new_field'] };
    const narrowed = {
      ...baseline,
      properties: { ...baseline.properties, event_type: { type: 'string', enum: ['record.created'] } },
    };

    expect(breakingChanges(baseline, renamed)).toEqual(['record_id: removed']);
    expect(breakingChanges(baseline, retyped)).toEqual(['revision.: type integer became string']);
    expect(breakingChanges(baseline, stricter)).toEqual(['new_field: became required']);
    expect(breakingChanges(baseline, narrowed)).toEqual(['event_type.: an allowed value was removed']);
    expect(
      breakingChanges(baseline, { ...baseline, properties: { ...baseline.properties, extra: { type: 'string' } } }),
    ).toEqual([]);
  });

  it('still reads a version 1 event as published, and ignores fields it does not know', () => {
    const published = {
      event_id: '01JDX0000000000000000000AA',
      event_type: 'record.revised',
      tenant: 'acme',
      namespace_hash: 'x3PjQ3cNf4kS0pTq2mB1aQ',
      record_kind: 'note',
      record_id: '01JDX0000000000000000000AB',
      revision: 2,
      actor: { principal: 'alice', client: 'coder-app' },
      idempotency_key: null,
      schema_version: 1,
      occurred_at: '2026-11-30T08:00:00.000Z',
    };

    expect(RecordEvent.parse(published)).toEqual(published);
    expect(RecordEvent.parse({ ...published, added_later: 'x' })).toEqual(published);
    expect(() => RecordEvent.parse({ ...published, schema_version: 2 })).toThrow();
  });
});
