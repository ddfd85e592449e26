import { z } from 'zod';
import type { ConfigLayout } from '../kernel/config/compose-config.ts';
import type { RecordKindDescription } from '../kernel/namespaces/record-kind.ts';
import type { ConsumerDeclaration } from './capability-module.ts';

/**
 * What the deployment is made of, as data generated from its module list (`npm run generate`, checked for
 * drift by a test): the CDK app builds a rule and a function per consumer from it, and a function running
 * some of the modules learns from it the record kinds and settings of the others.
 */
export const DeploymentDocument = z
  .object({
    version: z.literal(1),
    recordKinds: z.array(
      z
        .object({ name: z.string(), journal: z.boolean(), organisationOwned: z.boolean(), audited: z.boolean() })
        .strict(),
    ),
    consumers: z.array(
      z.object({ name: z.string(), entry: z.string(), handler: z.string(), description: z.string() }).strict(),
    ),
    workflows: z.array(z.string()),
    config: z
      .object({
        sections: z.array(z.object({ name: z.string(), perAgent: z.boolean(), fields: z.array(z.string()) }).strict()),
      })
      .strict(),
  })
  .strict();
export type DeploymentDocument = {
  readonly version: 1;
  readonly recordKinds: readonly RecordKindDescription[];
  readonly consumers: readonly ConsumerDeclaration[];
  readonly workflows: readonly string[];
  readonly config: ConfigLayout;
};
