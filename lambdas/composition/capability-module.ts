import type { ApiHandler, HttpContext } from '../http/http-operation.ts';
import type { Operation } from '../http/operation.ts';
import type { AnyConfigSection } from '../kernel/config/config-section.ts';
import type { EventConsumer } from '../kernel/events/event-consumer.port.ts';
import type { Kernel } from '../kernel/kernel.ts';
import type { RecordKind } from '../kernel/namespaces/record-kind.ts';
import type { NamespaceRebuilder, SearchProjection } from '../kernel/search/search-projection.ts';
import type { WorkflowPolicy } from '../kernel/workflows/workflow-definition.ts';
import type { WorkflowImplementation } from '../kernel/workflows/workflow-step-executor.ts';

/** A consumer of record events a module contributes: one EventBridge rule and one function in AWS. */
export interface ConsumerDeclaration {
  /** The consumer's name (`EventConsumer.name`), also what its dead letters are filed under. */
  readonly name: string;
  /** The Lambda entry that exports it, relative to the project root. */
  readonly entry: string;
  /** The export of that entry: one function's handler. */
  readonly handler: string;
  readonly description: string;
  /**
   * Whether the consumer acts on events of a kind: the same test its `consume` makes, so the rule on the bus
   * leaves the other kinds out and the function is never invoked for them. @default every kind
   */
  readonly handles?: (kind: RecordKind) => boolean;
}

/** What a module's `build` is given: the kernel, the HTTP context its handlers run in, and what it requires. */
export interface ModuleContext {
  readonly kernel: Kernel;
  readonly http: HttpContext;
  /** The services of a module this one lists in `requires` (built first). */
  use<Services>(module: CapabilityModule<Services, readonly AnyConfigSection[]>): Services;
  /**
   * How every module built in this process searches and shows its searchable kinds. Asked for when a search
   * runs, not at build time: modules built after this one contribute too.
   */
  searchable(): readonly SearchProjection[];
}

/** What a module contributes once built; each part must match what the module declares. */
export interface ModuleRuntime<Services> {
  /** What other modules may `use`, and tests may call. */
  readonly services: Services;
  /** By export name, one per `lambda.handler` of the module's operations. */
  readonly handlers?: Readonly<Record<string, ApiHandler>>;
  /** One per declared consumer, by name. */
  readonly consumers?: readonly EventConsumer[];
  /** One per declared workflow, by policy. */
  readonly workflows?: readonly WorkflowImplementation[];
  /** One per searchable kind the module declares: how retrieval indexes and shows it. */
  readonly searchable?: readonly SearchProjection[];
  /** Projections of the module's own the reconciler rebuilds from canonical heads (retrieval's index). */
  readonly rebuilders?: readonly NamespaceRebuilder[];
}

/**
 * A capability, as the service is composed from it. The module file declares everything the central tables
 * are built from — record kinds, operations (and so routes, the OpenAPI document and the API functions),
 * error statuses, configuration sections, consumers and workflows — and how its services are built on the
 * kernel. Adding a capability is a folder with one of these, and one line in `lambdas/app/capabilities.ts`.
 */
export interface CapabilityModule<
  Services = unknown,
  Config extends readonly AnyConfigSection[] = readonly AnyConfigSection[],
> {
  /** Lower-case kebab-case; unique in the service. */
  readonly name: string;
  readonly recordKinds?: readonly RecordKind[];
  readonly operations?: readonly Operation[];
  /** The HTTP status of each error code the module's services raise (codes of the kernel's errors are known). */
  readonly errorStatuses?: Readonly<Record<string, number>>;
  readonly config?: Config;
  readonly consumers?: readonly ConsumerDeclaration[];
  readonly workflows?: readonly WorkflowPolicy[];
  /** Modules whose services this one uses; a function serving this module builds them too. */
  readonly requires?: readonly AnyCapabilityModule[];
  build(context: ModuleContext): ModuleRuntime<Services>;
}

/** Declares a module; its configuration sections keep their types, so the composed document is typed too. */
export const defineModule = <Services, const Config extends readonly AnyConfigSection[] = readonly []>(
  module: CapabilityModule<Services, Config>,
): CapabilityModule<Services, Config> => Object.freeze(module);

/** A module of any services and sections, as lists of modules hold them. */
export type AnyCapabilityModule = CapabilityModule<unknown, readonly AnyConfigSection[]>;
