import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SFNClient } from '@aws-sdk/client-sfn';
import { AWS_CLIENT_DEFAULTS } from '../adapters/aws-client-defaults.ts';
import { EventBridgePublisher } from '../adapters/events/eventbridge-publisher.ts';
import { StepFunctionsStarter } from '../adapters/workflows/step-functions-starter.ts';
import type { EventPublisher } from '../kernel/events/event-publisher.port.ts';
import type { WorkflowStarter } from '../kernel/workflows/workflow-service.ts';
import type { AwsEnvironment } from './aws-application.ts';

/*
 * The AWS adapters only some functions need: an entry that publishes or starts workflows passes these to
 * `awsApplication`, so no other bundle carries the EventBridge or Step Functions client.
 */

/** The event bus of the deployment (`MEMORY_HUB_EVENT_BUS_NAME`, which a function that publishes must be told). */
export const eventBridgePublisher = (environment: AwsEnvironment): EventPublisher => {
  const busName = environment.MEMORY_HUB_EVENT_BUS_NAME;
  if (busName === undefined) throw new Error('MEMORY_HUB_EVENT_BUS_NAME is not set: there is no bus to publish to');
  return new EventBridgePublisher({ client: new EventBridgeClient({ ...AWS_CLIENT_DEFAULTS }), busName });
};

/** The workflows' state machines (`MEMORY_HUB_STATE_MACHINES`). */
export const stepFunctionsStarter = (environment: AwsEnvironment): WorkflowStarter =>
  new StepFunctionsStarter({
    client: new SFNClient({ ...AWS_CLIENT_DEFAULTS }),
    stateMachines: environment.MEMORY_HUB_STATE_MACHINES,
  });
