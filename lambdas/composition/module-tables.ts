import { HTTP_CONFIG_SECTIONS } from '../http/http-config.ts';
import type { Operation } from '../http/operation.ts';
import type { AnyConfigSection } from '../kernel/config/config-section.ts';
import { KERNEL_CONFIG_SECTIONS } from '../kernel/config/kernel-config.ts';
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
  return unique(ordered, (module) => [module.name], 'module');
};

/** The kernel's own kinds, then every module's. */
export const recordKindsOf = (modules: readonly AnyCapabilityModule[]): RecordKind[] =>
  unique([IDEMPOTENCY, ...modules.flatMap((module) => module.recordKinds ?? [])], (kind) => [kind.name], 'record kind');

/** Every operation, in module order: the order of the OpenAPI document and the local route table. */
export const operationsOf = (modules: readonly AnyCapabilityModule[]): Operation[] =>
  unique(
    unique(
      modules.flatMap((module) => module.operations ?? []),
      (operation) => operation.routes.map((route) => `${route.method} ${route.path}`),
      'route',
    ),
    (operation) => operation.routes.map((route) => route.operationId),
    'operation id',
  );

export type SectionsOf<Module> = Module extends { readonly config?: infer Config }
  ? Config extends readonly (infer Section extends AnyConfigSection)[]
    ? Section
    : never
  : never;

/** Every module's configuration sections, their types kept (so the composed document is typed). */
const configSectionsOf = <const Modules extends readonly AnyCapabilityModule[]>(
  modules: Modules,
): SectionsOf<Modules[number]>[] => modules.flatMap((module) => module.config ?? []) as SectionsOf<Modules[number]>[];

/** What a service of `modules` is configured by: the modules' sections, then the kernel's and the HTTP layer's. */
export const serviceConfigSectionsOf = <const Modules extends readonly AnyCapabilityModule[]>(
  modules: Modules,
): (
  | SectionsOf<Modules[number]>
  | (typeof KERNEL_CONFIG_SECTIONS)[number]
  | (typeof HTTP_CONFIG_SECTIONS)[number]
)[] => [...configSectionsOf(modules), ...KERNEL_CONFIG_SECTIONS, ...HTTP_CONFIG_SECTIONS];

export const workflowsOf = (modules: readonly AnyCapabilityModule[]): WorkflowPolicy[] =>
  unique(
    modules.flatMap((module) => module.workflows ?? []),
    (workflow) => [workflow.name],
    'workflow',
  );

export const consumersOf = (modules: readonly AnyCapabilityModule[]): ConsumerDeclaration[] =>
  unique(
    modules.flatMap((module) => module.consumers ?? []),
    (consumer) => [consumer.name],
    'consumer',
  );

/** `items`, once no two of them share a name (an item may go by several: an operation by each route). */
const unique = <T>(items: T[], namesOf: (item: T) => readonly string[], what: string): T[] => {
  const seen = new Set<string>();
  for (const name of items.flatMap(namesOf)) {
    if (seen.has(name)) throw new Error(`Two modules declare the ${what} ${name}`);
    seen.add(name);
  }
  return items;
};
