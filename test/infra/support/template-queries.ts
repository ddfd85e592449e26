/** Small readers of a synthesized template, shared by the construct tests. */
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';

export interface PolicyStatement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

/** The logical id of a construct's CloudFormation resource (its default child, or itself). */
export function logicalIdOf(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(element);
}

/** Every statement of every inline policy attached to a role. */
export function statementsOf(template: Template, role: IConstruct): PolicyStatement[] {
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: logicalIdOf(role) }]) },
  });
  return Object.values(policies).flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[]);
}

/** Every action a role is allowed. */
export function actionsOf(template: Template, role: IConstruct): string[] {
  return statementsOf(template, role)
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) => statement.Action);
}

/** The statements allowing `action`. */
export function statementsAllowing(template: Template, role: IConstruct, action: string): PolicyStatement[] {
  return statementsOf(template, role).filter(
    (statement) => statement.Effect === 'Allow' && [statement.Action].flat().includes(action),
  );
}

/**
 * A state machine's `DefinitionString` as JSON: `Fn::Join` parts are concatenated, every token (function
 * ARNs, the partition) replaced by `placeholder`.
 */
export function renderDefinition(definitionString: unknown, placeholder = 'TOKEN'): StateMachineDefinition {
  if (typeof definitionString === 'string') return JSON.parse(definitionString);
  const join = (definitionString as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join === undefined) throw new Error(`not a definition string: ${JSON.stringify(definitionString)}`);
  const [separator, parts] = join;
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : placeholder)).join(separator));
}

export interface StateDefinition {
  readonly Type: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly Resource?: string;
  readonly Parameters?: Record<string, unknown>;
  readonly OutputPath?: string;
  readonly ResultPath?: string | null;
  readonly Retry?: readonly Record<string, unknown>[];
  readonly Catch?: readonly { ErrorEquals: string[]; Next: string; ResultPath?: string }[];
  readonly ErrorPath?: string;
  readonly CausePath?: string;
}

export interface StateMachineDefinition {
  readonly StartAt: string;
  readonly States: Record<string, StateDefinition>;
  readonly TimeoutSeconds?: number;
}
