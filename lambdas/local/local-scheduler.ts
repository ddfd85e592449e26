import type { IdGenerator } from '../kernel/time/ids.ts';
import type { WorkflowPolicy } from '../kernel/workflows/workflow-definition.ts';
import type { WorkflowStarter } from '../kernel/workflows/workflow-service.ts';

const UNIT_MS: Readonly<Record<string, number>> = {
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** Milliseconds between runs for an EventBridge Scheduler `rate(…)` expression; undefined for anything else. */
export const rateMilliseconds = (expression: string): number | undefined => {
  const match = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(expression);
  const unit = match?.[2] ? UNIT_MS[match[2]] : undefined;
  return match?.[1] && unit ? Number(match[1]) * unit : undefined;
};

/** Local mode's EventBridge Scheduler: starts each scheduled workflow at its rate, for all tenants. */
export class LocalScheduler {
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(options: { workflows: readonly WorkflowPolicy[]; starter: WorkflowStarter; ids: IdGenerator }) {
    for (const workflow of options.workflows) {
      const every = workflow.schedule ? rateMilliseconds(workflow.schedule) : undefined;
      if (every === undefined) continue;
      const timer = setInterval(() => {
        void options.starter.start(workflow.name, options.ids.next(), {}).catch(() => undefined);
      }, every);
      timer.unref();
      this.#timers.push(timer);
    }
  }

  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
  }
}
