/**
 * The tables of a whole service, composed from its capabilities: what local mode serves, what the generated
 * documents are built from, and what tests about the whole service check. `SERVICE` is the one this
 * repository deploys (`capabilities.ts`); a test may compose another from its own module list.
 */
import type { AnyCapabilityModule } from '../composition/capability-module.ts';
import {
  consumersOf,
  operationsOf,
  recordKindsOf,
  serviceConfigSectionsOf,
  withRequiredModules,
  workflowsOf,
} from '../composition/module-tables.ts';
import { composeConfiguration } from '../kernel/config/compose-config.ts';
import { recordEventContract } from '../kernel/events/record-event.schema.ts';
import { RecordKinds } from '../kernel/namespaces/record-kind.ts';
import { CAPABILITIES } from './capabilities.ts';

/** The event backbone's entry: the relay (which projects heads on the way) and its sweep. */
export const EVENT_BACKBONE_ENTRY = 'lambdas/app/event-backbone.lambda.ts';

/** Every table of a service made of `modules` (listed in the order their operations are documented). */
export const serviceTables = <const Modules extends readonly AnyCapabilityModule[]>(modules: Modules) => {
  const ordered = withRequiredModules(modules);
  return {
    /** The modules, each after the ones it requires. */
    modules: ordered,
    operations: operationsOf(modules),
    kinds: RecordKinds.of(recordKindsOf(ordered)),
    workflows: workflowsOf(ordered),
    /** Every consumer the bus delivers record events to: the modules'. (The relay projects heads itself.) */
    consumers: consumersOf(ordered),
    /** The configuration document: every capability's sections, then the kernel's and the HTTP layer's. */
    configuration: composeConfiguration(serviceConfigSectionsOf(modules)),
  };
};

export const SERVICE = serviceTables(CAPABILITIES);

export const API_OPERATIONS = SERVICE.operations;
export const RECORD_KINDS = SERVICE.kinds;
export const WORKFLOWS = SERVICE.workflows;
export const SERVICE_CONFIGURATION = SERVICE.configuration;
export const MemoryHubConfig = SERVICE_CONFIGURATION.schema;
export type MemoryHubConfig = typeof SERVICE_CONFIGURATION.defaults;
export const DEFAULT_CONFIG: MemoryHubConfig = SERVICE_CONFIGURATION.defaults;
export const parseConfig = SERVICE_CONFIGURATION.parse;
export const parseConfigDocument = SERVICE_CONFIGURATION.parseDocument;
export const settingsForAgent = SERVICE_CONFIGURATION.settingsForAgent;

/** The record event as this deployment publishes it: `record_kind` enumerates its kinds (and version 1's). */
export const RecordEventContract = recordEventContract(RECORD_KINDS.names);
