/**
 * The whole service's tables, composed from its capabilities (`capabilities.ts`): what local mode serves,
 * what the generated documents are built from, and what tests about the whole service check.
 */
import type { ConsumerDeclaration } from '../composition/capability-module.ts';
import { HEAD_PROJECTION_CONSUMER } from '../composition/compose-service.ts';
import {
  configSectionsOf,
  consumersOf,
  operationsOf,
  recordKindsOf,
  withRequiredModules,
  workflowsOf,
} from '../composition/module-tables.ts';
import { composeConfiguration } from '../kernel/config/compose-config.ts';
import { KERNEL_CONFIG_SECTIONS } from '../kernel/config/kernel-config.ts';
import { recordEventContract } from '../kernel/events/record-event.schema.ts';
import { RecordKinds } from '../kernel/namespaces/record-kind.ts';
import { CAPABILITIES } from './capabilities.ts';

export const SERVICE_MODULES = withRequiredModules(CAPABILITIES);
export const API_OPERATIONS = operationsOf(CAPABILITIES);
export const RECORD_KINDS = RecordKinds.of(recordKindsOf(SERVICE_MODULES));
export const WORKFLOWS = workflowsOf(SERVICE_MODULES);

/** The event backbone's entry: the relay, its sweep and the kernel's head projection. */
export const EVENT_BACKBONE_ENTRY = 'lambdas/app/event-backbone.lambda.ts';

/** Every consumer of record events: the kernel's head projection, then the modules'. */
export const CONSUMERS: readonly ConsumerDeclaration[] = [
  {
    name: HEAD_PROJECTION_CONSUMER,
    entry: EVENT_BACKBONE_ENTRY,
    handler: 'projectHead',
    description: 'Projects record events onto the head items',
  },
  ...consumersOf(SERVICE_MODULES),
];

/** The configuration document: every capability's sections, then the kernel's. */
export const SERVICE_CONFIGURATION = composeConfiguration([
  ...configSectionsOf(CAPABILITIES),
  ...KERNEL_CONFIG_SECTIONS,
]);
export const MemoryHubConfig = SERVICE_CONFIGURATION.schema;
export type MemoryHubConfig = typeof SERVICE_CONFIGURATION.defaults;
export const DEFAULT_CONFIG: MemoryHubConfig = SERVICE_CONFIGURATION.defaults;
export const parseConfig = SERVICE_CONFIGURATION.parse;
export const parseConfigDocument = SERVICE_CONFIGURATION.parseDocument;
export const settingsForAgent = SERVICE_CONFIGURATION.settingsForAgent;

/** The record event as this deployment publishes it: `record_kind` enumerates its kinds (and version 1's). */
export const RecordEventContract = recordEventContract(RECORD_KINDS.names);
