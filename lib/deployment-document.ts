/**
 * Reads the consumers out of the generated `lambdas/generated/deployment.json`.
 *
 * The consumers of record events are declared by the capability modules (and the kernel's head projection
 * beside them); the CDK app must not import that runtime code, so it reads the generated JSON and validates
 * the part it builds from: each consumer's name, entry, exported handler and the record kinds it handles.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';

const RecordKindName = z.string().regex(/^[a-z][a-z-]{0,31}$/, 'must be a record kind name');

const Consumer = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9-]{0,47}$/, 'must be lower-case kebab-case'),
    entry: z
      .string()
      .regex(/^[A-Za-z0-9_-][A-Za-z0-9_./-]*\.ts$/, 'must be a relative path to a .ts file')
      .refine((entry) => !entry.split('/').includes('..'), 'must not leave the project'),
    handler: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'must be the name of an exported function'),
    description: z.string().max(256),
    /** The kinds whose events the consumer acts on; it ignores the others' whatever they say. */
    recordKinds: z.array(RecordKindName),
  })
  .strict();

const DeploymentConsumers = z
  .object({
    recordKinds: z.array(z.object({ name: RecordKindName }).loose()),
    consumers: z.array(Consumer).min(1),
  })
  .superRefine((document, context) => {
    for (const field of ['name', 'handler'] as const) {
      const values = document.consumers.map((consumer) => consumer[field]);
      const duplicate = values.find((value, index) => values.indexOf(value) !== index);
      if (duplicate !== undefined)
        context.addIssue({ code: 'custom', message: `consumer ${field} "${duplicate}" appears twice` });
    }
    const kinds = new Set(document.recordKinds.map((kind) => kind.name));
    for (const consumer of document.consumers) {
      const unknown = consumer.recordKinds.find((kind) => !kinds.has(kind));
      if (unknown !== undefined)
        context.addIssue({
          code: 'custom',
          message: `consumer ${consumer.name} handles "${unknown}", not a record kind`,
        });
    }
  });

export type ConsumerSpec = z.infer<typeof Consumer> & {
  /** The deployment's record kinds the consumer does not handle: its rule on the bus leaves their events out. */
  readonly ignoredRecordKinds: readonly string[];
};

/** The consumers of a deployment document; throws with every problem found. */
export function readConsumers(document: unknown, source = 'The deployment document'): ConsumerSpec[] {
  const parsed = DeploymentConsumers.safeParse(document);
  if (!parsed.success) throw new Error(`${source} cannot be deployed: ${z.prettifyError(parsed.error)}`);
  const kinds = parsed.data.recordKinds.map((kind) => kind.name);
  return parsed.data.consumers.map((consumer) => ({
    ...consumer,
    ignoredRecordKinds: kinds.filter((kind) => !consumer.recordKinds.includes(kind)),
  }));
}

export function loadConsumers(path: string): ConsumerSpec[] {
  return readConsumers(JSON.parse(readFileSync(path, 'utf8')), path);
}
