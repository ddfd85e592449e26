/**
 * Which account and region the stack is pinned to: only what an operator chose, never a guess.
 *
 * The CDK CLI always sets `CDK_DEFAULT_REGION`, falling back to `us-east-1` when nothing is configured, and
 * `CDK_DEFAULT_ACCOUNT` from whatever credentials the machine has. Neither is a choice, so neither is read:
 * a template synthesized without a choice is environment-agnostic (the stack's own `AWS::Region` and
 * `AWS::AccountId`) and deploys wherever it is deployed.
 */
import type { Environment } from 'aws-cdk-lib';

/** Read in this order; the context (`-c region=…`) comes first. `CDK_DEFAULT_REGION` is deliberately absent. */
export const REGION_VARIABLES = ['AWS_REGION', 'AWS_DEFAULT_REGION'] as const;

/** `us-east-1`, `eu-west-1`, `us-gov-west-1`, `cn-north-1`, `ap-southeast-4`, … */
const REGION_NAME = /^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d{1,2}$/;
const ACCOUNT_ID = /^\d{12}$/;

export interface EnvironmentSources {
  /** The app's context (`cdk.json`, `-c key=value`). */
  readonly context: (key: string) => unknown;
  /** The process environment. */
  readonly variables: Readonly<Record<string, string | undefined>>;
}

/**
 * The stack's environment: the region from context `region`, else `AWS_REGION`, else `AWS_DEFAULT_REGION`;
 * the account from context `account` only. What is not chosen stays unresolved. Throws on a value that is
 * not a region or an account, naming where it came from.
 */
export function chosenEnvironment({ context, variables }: EnvironmentSources): Environment {
  const region = firstChosen([
    ['context region', context('region')],
    ...REGION_VARIABLES.map((name) => [name, variables[name]] as const),
  ]);
  const account = firstChosen([['context account', context('account')]]);
  if (region && !REGION_NAME.test(region.value)) {
    throw new Error(`${region.source} "${region.value}" is not an AWS region name (e.g. eu-west-1)`);
  }
  if (account && !ACCOUNT_ID.test(account.value)) {
    throw new Error(`${account.source} "${account.value}" is not a 12-digit AWS account id`);
  }
  return { ...(region ? { region: region.value } : {}), ...(account ? { account: account.value } : {}) };
}

function firstChosen(
  candidates: readonly (readonly [source: string, value: unknown])[],
): { source: string; value: string } | undefined {
  for (const [source, value] of candidates) {
    if (value === undefined || value === null || value === '') continue;
    return { source, value: String(value) };
  }
  return undefined;
}
