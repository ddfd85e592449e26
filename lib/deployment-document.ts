/**
 * Reads the consumers out of the generated `lambdas/generated/deployment.json`.
 *
 * The consumers of record events are declared by the capability modules (and the kernel's head projection
 * beside them); the CDK app must not import that runtime code, so it reads the generated JSON and validates
 * the part it builds from: each consumer's name, entry and exported handler.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';

const Consumer = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9-]{0,47}$/, 'must be lower-case kebab-case'),
    entry: z
      .string()
      .regex(/^[A-Za-z0-9_-][A-Za-z0-9_./-]*\.ts$/, 'must be a relative path to a .ts file')
      .refine((entry) => !entry.split('/').includes('..'), 'must not leave the project'),
    handler: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'must be the name of an exported function'),
    description: z.string().max(256),
  })
  .strict();
export type ConsumerSpec = z.infer<typeof Consumer>;

const DeploymentConsumers = z.object({ consumers: z.array(Consumer).min(1) }).superRefine((document, context) => {
  for (const field of ['name', 'handler'] as const) {
    const values = document.consumers.map((consumer) => consumer[field]);
    const duplicate = values.find((value, index) => values.indexOf(value) !== index);
    if (duplicate !== undefined)
      context.addIssue({ code: 'custom', message: `consumer ${field} "${duplicate}" appears twice` });
  }
});

/** The consumers of a deployment document; throws with every problem found. */
export function readConsumers(document: unknown, source = 'The deployment document'): ConsumerSpec[] {
  const parsed = DeploymentConsumers.safeParse(document);
  if (!parsed.success) throw new Error(`${source} cannot be deployed: ${z.prettifyError(parsed.error)}`);
  return parsed.data.consumers;
}

export function loadConsumers(path: string): ConsumerSpec[] {
  return readConsumers(JSON.parse(readFileSync(path, 'utf8')), path);
}
