import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { loadDefaultConfig, Parameters, STANDARD_PARAMETER_MAX_BYTES } from '../../lib/constructs/parameters.ts';
import { bareStack, FIXTURE_SOURCES } from './support/fixture-app.ts';

describe('Construct: Parameters', () => {
  const defaultConfig = loadDefaultConfig(FIXTURE_SOURCES.defaultConfigPath);

  it('creates /memory-hub/{stage}/config holding the default configuration as JSON', () => {
    // Prepare
    const stack = bareStack();

    // Act
    new Parameters(stack, 'Parameters', { stage: 'qa', defaultConfig });

    // Assess
    const [parameter] = Object.values(Template.fromStack(stack).findResources('AWS::SSM::Parameter'));
    expect(parameter?.Properties).toMatchObject({
      Name: '/memory-hub/qa/config',
      Type: 'String',
      DataType: 'text',
      Tier: 'Standard',
    });
    expect(JSON.parse(parameter?.Properties.Value)).toEqual(
      JSON.parse(readFileSync(FIXTURE_SOURCES.defaultConfigPath, 'utf8')),
    );
  });

  it('moves to the Advanced tier when the configuration outgrows a Standard parameter', () => {
    // Prepare
    const stack = bareStack();
    const large = { ...defaultConfig, agents: { notes: 'x'.repeat(STANDARD_PARAMETER_MAX_BYTES) } };

    // Act
    const parameters = new Parameters(stack, 'Parameters', { stage: 'qa', defaultConfig: large });

    // Assess
    expect(parameters.configTier).toBe('Advanced');
    Template.fromStack(stack).hasResourceProperties('AWS::SSM::Parameter', { Tier: 'Advanced' });
  });

  it('refuses a configuration no SSM parameter can hold', () => {
    // Prepare
    const huge = { ...defaultConfig, agents: { notes: 'x'.repeat(2 * STANDARD_PARAMETER_MAX_BYTES) } };

    // Act & Assess
    expect(() => new Parameters(bareStack(), 'Parameters', { stage: 'qa', defaultConfig: huge })).toThrow(
      /at most 8 KB/,
    );
  });

  it('refuses a default configuration that is not a JSON object', () => {
    // Act & Assess
    expect(
      () =>
        new Parameters(bareStack(), 'Parameters', {
          stage: 'qa',
          defaultConfig: [] as unknown as Record<string, unknown>,
        }),
    ).toThrow(/must be a JSON object/);
  });
});
