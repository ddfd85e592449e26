import type { Operation } from '../http/operation.ts';
import type { AnyConfigSection } from '../kernel/config/config-section.ts';
import { IDEMPOTENCY } from '../kernel/idempotency/idempotency-store.port.ts';
import type { RecordKind } from '../kernel/namespaces/record-kind.ts';
import type { WorkflowPolicy } from '../kernel/workflows/workflow-definition.ts';
import type { AnyCapabilityModule, ConsumerDeclaration } from './capability-module.ts';

/*
 * The central tables, built from a list of modules rather than kept by hand: which kinds, operations,
 * consumers and workflows the service has. Each name is checked to be unique, so two modules cannot claim
 * one route, kind, handler, consumer or workflow.
 */

/** The modules and, before each, the modules it requires (transitively), each once; a cycle is refused. */
export const withRequiredModules = (modules: readonly AnyCapabilityModule[]): AnyCapabilityModule[] => {
  const ordered: AnyCapabilityModule[] = [];
  const visiting = new Set<AnyCapabilityModule>();
  const visit = (module: AnyCapabilityModule, path: readonly string[]) => {
    if (ordered.includes(module)) return;
    if (visiting.has(module)) throw new Error(`Modules require each other: ${[...path, module.name].join(' → ')}`);
    visiting.add(module);
    for (const required of module.requires ?? []) visit(required, [...path, module.name]);
    visiting.delete(module);
    ordered.push(module);
  };
  for (const module of modules) visit(module, []);
  unique(
    ordered.map((module) => module.name),
    'module',
  );
  return ordered;
};

/** The kernel's own kinds, then every module's. */
export const recordKindsOf = (modules: readonly AnyCapabilityModule[]): RecordKind[] => {
  const kinds = [IDEMPOTENCY, ...modules.flatMap((module) => module.recordKinds ?? [])];
  unique(
    kinds.map((kind) => kind.name),
    'record kind',
  );
  return kinds;
};

/** Every operation, in module order: the order of the OpenAPI document and the local route table. */
export const operationsOf = (modules: readonly AnyCapabilityModule[]): Operation[] => {
  const operations = modules.flatMap((module) => module.operations ?? []);
  unique(
    operations.flatMap((operation) => operation.routes.map((route) => `${route.method} ${route.path}`)),
    'route',
  );
  unique(
    operations.flatMap((operation) => operation.routes.map((route) => route.operationId)),
    'operation id',
  );
  return operations;
};

export type SectionsOf<Module> = Module extends { readonly config?: infer Config }
  ? Config extends readonly (infer Section extends AnyConfigSection)[]
    ? Section
    : never
  : never;

/** Every module's configuration sections, their types kept (so the composed document is typed). */
export const configSectionsOf = <const Modules extends readonly AnyCapabilityModule[]>(
  modules: Modules,
): SectionsOf<Modules[number]>[] => modules.flatMap((module) => module.config ?? []) as SectionsOf<Modules[number]>[];

export const workflowsOf = (modules: readonly AnyCapabilityModule[]): WorkflowPolicy[] => {
  const workflows = modules.flatMap((module) => module.workflows ?? []);
  unique(
    workflows.map((workflow) => workflow.name),
    'workflow',
  );
  return workflows;
};

export const consumersOf = (modules: readonly AnyCapabilityModule[]): ConsumerDeclaration[] => {
  const consumers = modules.flatMap((module) => module.consumers ?? []);
  unique(
    consumers.map((consumer) => consumer.name),
    'consumer',
  );
  return consumers;
};

const unique = (names: readonly string[], what: string): void => {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new Error(`Two modules declare the ${what} ${name}`);
    seen.add(name);
  }
};
