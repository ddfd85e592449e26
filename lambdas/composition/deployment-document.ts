import * as z from 'zod';
import { ConfigLayout } from '../kernel/config/compose-config.ts';
import { RecordKindDescription } from '../kernel/namespaces/record-kind.ts';

/**
 * What the deployment is made of, as data generated from its module list (`npm run generate`, checked for
 * drift by a test): the CDK app builds a rule and a function per consumer from it, and a function running
 * some of the modules learns from it the record kinds and settings of the others.
 */
export const DeploymentDocument = z
  .object({
    version: z.literal(1),
    recordKinds: z.array(RecordKindDescription).readonly(),
    consumers: z
      .array(
        z
          .object({
            name: z.string(),
            entry: z.string(),
            handler: z.string(),
            description: z.string(),
            /** The kinds whose events it acts on (its declaration's `handles`): its rule leaves the others out. */
            recordKinds: z.array(z.string()).readonly(),
          })
          .strict()
          .readonly(),
      )
      .readonly(),
    workflows: z.array(z.string()).readonly(),
    config: ConfigLayout,
  })
  .strict();
export type DeploymentDocument = z.infer<typeof DeploymentDocument>;
