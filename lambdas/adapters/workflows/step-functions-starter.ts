import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { NotFoundError } from '../../kernel/errors/domain-error.ts';
import type { WorkflowStarter } from '../../kernel/workflows/workflow-service.ts';
import type { StepInput } from '../../kernel/workflows/workflow-step-executor.ts';
import { translateAwsError } from '../aws-service-errors.ts';

/** Starts the workflow's state machine with the run id as the execution name, so steps record on the same run. */
export class StepFunctionsStarter implements WorkflowStarter {
  readonly #client: Pick<SFNClient, 'send'>;
  readonly #stateMachines: Readonly<Record<string, string>>;

  constructor(options: { client: Pick<SFNClient, 'send'>; stateMachines: Readonly<Record<string, string>> }) {
    this.#client = options.client;
    this.#stateMachines = options.stateMachines;
  }

  async start(workflow: string, runId: string, input: StepInput): Promise<void> {
    const stateMachineArn = this.#stateMachines[workflow];
    if (!stateMachineArn) throw new NotFoundError();
    try {
      await this.#client.send(
        new StartExecutionCommand({ stateMachineArn, name: runId, input: JSON.stringify(input) }),
      );
    } catch (error) {
      throw translateAwsError(error);
    }
  }
}
