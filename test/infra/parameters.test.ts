import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CONFIG_PARAMETER_INITIAL_VALUE, Parameters } from '../../lib/constructs/parameters.ts';
import { bareStack } from './support/fixture-app.ts';

/** The document 4233b7e's stack wrote into the parameter, as it was deployed (compact JSON). */
const DEPLOYED_VALUE = JSON.stringify(
  JSON.parse(readFileSync('test/fixtures/deployed/default-config.4233b7e.json', 'utf8')),
);

describe('Construct: Parameters', () => {
  it('creates /memory-hub/{stage}/config with every property as the previous release deployed it', () => {
    // Prepare
    const stack = bareStack();

    // Act
    new Parameters(stack, 'Parameters', { stage: 'qa' });

    // Assess: CloudFormation rewrites the value, and the operator's overrides in it, when any property changes
    const [parameter] = Object.values(Template.fromStack(stack).findResources('AWS::SSM::Parameter'));
    expect(parameter?.Properties).toEqual({
      Name: '/memory-hub/qa/config',
      Type: 'String',
      Value: DEPLOYED_VALUE,
      Description: 'Memory Hub qa: tunable configuration (JSON), validated by the service at start',
      DataType: 'text',
      Tier: 'Standard',
    });
  });

  it('writes one constant value, whatever the stage, that never follows the service defaults', () => {
    // Prepare
    const stacks = ['dev', 'prod'].map((stage) => {
      const stack = bareStack();
      new Parameters(stack, 'Parameters', { stage });
      return Template.fromStack(stack);
    });

    // Act
    const values = stacks.map(
      (template) => Object.values(template.findResources('AWS::SSM::Parameter'))[0]?.Properties.Value,
    );

    // Assess
    expect(values).toEqual([CONFIG_PARAMETER_INITIAL_VALUE, CONFIG_PARAMETER_INITIAL_VALUE]);
    expect(CONFIG_PARAMETER_INITIAL_VALUE).toBe(DEPLOYED_VALUE);
  });

  it('is deleted with the stack, so that a stack created again can create it (README: copy overrides out first)', () => {
    const stack = bareStack();

    new Parameters(stack, 'Parameters', { stage: 'qa' });

    const [parameter] = Object.values(Template.fromStack(stack).findResources('AWS::SSM::Parameter'));
    expect(parameter?.DeletionPolicy).toBeUndefined();
  });
});
