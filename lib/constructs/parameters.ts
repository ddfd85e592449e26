import { ParameterDataType, ParameterTier, StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';

/**
 * The value the stack creates the parameter with, and writes in every template after: the default document
 * earlier releases wrote into it (as 4233b7e deployed it), byte for byte, so that upgrading a stack changes
 * nothing CloudFormation owns. The service reads this exact text as "nothing overridden" (`lambdas/adapters/config/config-parameter.ts`
 * holds the same text; a test keeps the two equal). Never change it.
 */
export const CONFIG_PARAMETER_INITIAL_VALUE =
  '{"retention":{"noteHorizonDays":365,"idempotencyKeyHours":24},"learning":{"minOccurrences":3,"windowDays":90,"minDistinctSessions":2,"decayAfterDays":60,"expireAfterDays":180,"recencyHalfLifeDays":30,"sessionEventTtlDays":30},"http":{"maxBodyBytes":65536},"listing":{"defaultPageSize":20,"maxPageSize":100},"housekeeping":{"purgeAfterDays":30,"auditRetentionDays":400},"agents":{}}';

export interface ParametersProps {
  /** Deployment stage; the parameter is `/memory-hub/{stage}/config`. */
  readonly stage: string;
}

/**
 * The operator's configuration overrides: one SSM String parameter `/memory-hub/{stage}/config` holding a
 * JSON object. The defaults ship inside each function; the service merges the overrides over them, validated
 * (an invalid document keeps the last good value). CloudFormation creates the parameter and never writes it
 * again: every property below is constant, because a change to any of them makes CloudFormation put the
 * template's value over the operator's. It is a Standard parameter (4 KB); an operator whose overrides outgrow
 * it moves it to the Advanced tier with the CLI. Deleting the stack deletes it (retaining it would make the
 * stack impossible to create again under the same name): copy the overrides out first.
 */
export class Parameters extends Construct {
  public readonly config: StringParameter;

  constructor(scope: Construct, id: string, props: ParametersProps) {
    super(scope, id);
    this.config = new StringParameter(this, 'Config', {
      parameterName: `/memory-hub/${props.stage}/config`,
      // The words of the first release; kept, like the value, so CloudFormation never updates the parameter.
      description: `Memory Hub ${props.stage}: tunable configuration (JSON), validated by the service at start`,
      stringValue: CONFIG_PARAMETER_INITIAL_VALUE,
      dataType: ParameterDataType.TEXT,
      tier: ParameterTier.STANDARD,
    });
  }
}
