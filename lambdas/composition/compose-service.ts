import { ClientThrottle } from '../http/client-throttle.ts';
import { errorStatusTable, KERNEL_ERROR_STATUSES } from '../http/error-responses.ts';
import type { ApiHandler, HttpContext } from '../http/http-operation.ts';
import type { Operation } from '../http/operation.ts';
import type { AnyConfigSection } from '../kernel/config/config-section.ts';
import type { EventConsumer } from '../kernel/events/event-consumer.port.ts';
import type { EventPublisher } from '../kernel/events/event-publisher.port.ts';
import { HeadProjectionConsumer } from '../kernel/events/head-projection.consumer.ts';
import { OutboxRelay } from '../kernel/events/outbox-relay.ts';
import { Reconciler } from '../kernel/events/reconciler.ts';
import { assembleKernel, type Kernel, type KernelPorts } from '../kernel/kernel.ts';
import type { ClientQuotaLedger } from '../kernel/quota/client-quota-ledger.port.ts';
import type { WorkflowStarter } from '../kernel/workflows/workflow-service.ts';
import { WorkflowStepExecutor } from '../kernel/workflows/workflow-step-executor.ts';
import type { AnyCapabilityModule, CapabilityModule, ModuleRuntime } from './capability-module.ts';
import { withRequiredModules } from './module-tables.ts';

/** The ports a service is composed on; the AWS, local and in-memory compositions differ only in these. */
export interface ServicePorts extends KernelPorts {
  /** The bus; locally it delivers to the consumers composed here, hence a factory. */
  readonly publisher: (consumers: readonly EventConsumer[]) => EventPublisher;
  /** Step Functions in AWS; locally a runner of the executor composed here, hence a factory. */
  readonly workflowStarter: (executor: WorkflowStepExecutor) => WorkflowStarter;
  /** Every workflow of the deployment, by name: what the admin operations may start. */
  readonly workflowNames: readonly string[];
  /** The count every execution environment leases its app clients' requests from (the per-client throttle). */
  readonly clientQuota: ClientQuotaLedger;
}

/** The service's own machinery, driven by streams, schedules and the bus rather than by callers. */
export interface SystemParts {
  readonly relay: OutboxRelay;
  /**
   * By consumer name: the kernel's head projection (the relay runs it on each event; the bus never delivers to
   * it) and every module's consumer (delivered by the bus).
   */
  readonly consumers: Readonly<Record<string, EventConsumer>>;
  readonly reconciler: Reconciler;
  readonly workflowSteps: WorkflowStepExecutor;
}

/** A service composed of the kernel and some capability modules. */
export interface ComposedService {
  readonly kernel: Kernel;
  readonly http: HttpContext;
  /** Every handler of the modules, by export name (`x-memory-hub.lambda.handler`). */
  readonly handlers: Readonly<Record<string, ApiHandler>>;
  readonly system: SystemParts;
  /** The services a module built (it must be one of this service's modules). */
  services<Services>(module: CapabilityModule<Services, readonly AnyConfigSection[]>): Services;
}

/**
 * Builds the kernel, then each module on it (required modules first), then the machinery that spans them:
 * the relay publishing to the modules' consumers and projecting heads itself, the executor of their workflows, and the
 * reconciler. Everything a module returns is checked against what it declares, so a table built from the
 * declarations (routes, functions, rules, state machines) never names what does not exist.
 */
export const composeService = (ports: ServicePorts, modules: readonly AnyCapabilityModule[]): ComposedService => {
  const ordered = withRequiredModules(modules);
  let starter: WorkflowStarter | undefined;
  const kernel = assembleKernel(ports, {
    // Bound below, once the modules' workflows are known: a module's handlers may start any workflow.
    starter: {
      start: (workflow, runId, input) => {
        if (!starter) throw new Error('A workflow was started before the service was composed');
        return starter.start(workflow, runId, input);
      },
    },
    names: ports.workflowNames,
  });
  const http: HttpContext = {
    config: ports.config,
    metrics: ports.metrics,
    log: ports.log,
    statuses: errorStatusTable(KERNEL_ERROR_STATUSES, ...ordered.map((module) => module.errorStatuses ?? {})),
    throttle: new ClientThrottle({ clock: ports.clock, ledger: ports.clientQuota }),
  };
  const built = new Map<AnyCapabilityModule, ModuleRuntime<unknown>>();
  const searchable = () => [...built.values()].flatMap((runtime) => runtime.searchable ?? []);
  for (const module of ordered) {
    const runtime = module.build({
      kernel,
      http,
      use: (required) => {
        if (!(module.requires ?? []).includes(required as AnyCapabilityModule))
          throw new Error(`The ${module.name} module uses ${required.name} without requiring it`);
        return servicesOf(built, required);
      },
      searchable,
    });
    checkRuntime(module, runtime);
    built.set(module, runtime);
  }
  const runtimes = [...built.values()];
  // The head projection is the relay's own: a read per event, where a bus delivery would be an invocation.
  const headProjection = new HeadProjectionConsumer({
    heads: ports.heads,
    directory: ports.directory,
    kinds: ports.kinds,
  });
  const busConsumers = runtimes.flatMap((runtime) => runtime.consumers ?? []);
  const consumers: EventConsumer[] = [headProjection, ...busConsumers];
  const relay = new OutboxRelay({
    outbox: ports.outbox,
    publisher: ports.publisher(busConsumers),
    clock: ports.clock,
    metrics: ports.metrics,
    inlineConsumers: [headProjection],
  });
  const workflowSteps = new WorkflowStepExecutor({
    workflows: runtimes.flatMap((runtime) => runtime.workflows ?? []),
    runs: ports.workflowRuns,
    clock: ports.clock,
  });
  starter = ports.workflowStarter(workflowSteps);
  const handlers: Record<string, ApiHandler> = {};
  for (const runtime of runtimes)
    for (const [name, handler] of Object.entries(runtime.handlers ?? {})) {
      if (Object.hasOwn(handlers, name)) throw new Error(`Two modules export the handler ${name}`);
      handlers[name] = handler;
    }
  return {
    kernel,
    http,
    handlers,
    system: {
      relay,
      consumers: Object.fromEntries(consumers.map((consumer) => [consumer.name, consumer])),
      reconciler: new Reconciler({
        ...ports,
        relay,
        rebuilders: runtimes.flatMap((runtime) => runtime.rebuilders ?? []),
      }),
      workflowSteps,
    },
    services: (module) => servicesOf(built, module),
  };
};

const servicesOf = <Services>(
  built: ReadonlyMap<AnyCapabilityModule, ModuleRuntime<unknown>>,
  module: CapabilityModule<Services, readonly AnyConfigSection[]>,
): Services => {
  const runtime = built.get(module as AnyCapabilityModule);
  if (!runtime) throw new Error(`The ${module.name} module is not part of this service`);
  return runtime.services as Services;
};

/** What a module built must be what it declared: one handler per operation, one consumer and one workflow each. */
const checkRuntime = (module: AnyCapabilityModule, runtime: ModuleRuntime<unknown>): void => {
  const same = (declared: readonly string[], built: readonly string[], what: string) => {
    const a = [...new Set(declared)].sort().join(', ');
    const b = [...built].sort().join(', ');
    if (a !== b) throw new Error(`The ${module.name} module declares the ${what} [${a}] but built [${b}]`);
  };
  same(
    (module.operations ?? []).map((operation: Operation) => operation.lambda.handler),
    Object.keys(runtime.handlers ?? {}),
    'handlers',
  );
  same(
    (module.consumers ?? []).map((consumer) => consumer.name),
    (runtime.consumers ?? []).map((consumer) => consumer.name),
    'consumers',
  );
  same(
    (module.recordKinds ?? []).filter((kind) => kind.searchable).map((kind) => kind.name),
    (runtime.searchable ?? []).map((projection) => projection.kind.name),
    'searchable kinds',
  );
  same(
    (module.workflows ?? []).map((workflow) => workflow.name),
    (runtime.workflows ?? []).map((workflow) => workflow.policy.name),
    'workflows',
  );
};
