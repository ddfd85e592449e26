import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INITIAL_PARAMETER_VALUE, overridesIn } from '../../../lambdas/adapters/config/config-parameter.ts';
import { DEFAULT_CONFIG_DOCUMENT_PATH, defaultConfigDocument } from '../../../lambdas/app/documents.ts';
import { DEFAULT_CONFIG, MemoryHubConfig, parseConfigDocument } from '../../../lambdas/app/service-tables.ts';
import { CONFIG_PARAMETER_INITIAL_VALUE } from '../../../lib/constructs/parameters.ts';

describe('Document: default-config.json', () => {
  const committed: unknown = JSON.parse(readFileSync(DEFAULT_CONFIG_DOCUMENT_PATH, 'utf8'));

  it('is exactly the schema defaults (run `npm run generate` after changing a default)', () => {
    expect(committed).toEqual(defaultConfigDocument());
    expect(committed).toEqual(DEFAULT_CONFIG);
  });

  it('is valid as the parameter’s overrides too: a whole document is a complete set of overrides', () => {
    expect(parseConfigDocument(JSON.stringify(committed), 'the parameter')).toEqual(DEFAULT_CONFIG);
  });

  it('is a valid configuration document that names every section', () => {
    expect(MemoryHubConfig.parse(committed)).toEqual(committed);
    expect(Object.keys(committed as object).sort()).toEqual(Object.keys(MemoryHubConfig.shape).sort());
  });
});

describe('Document: README configuration example', () => {
  it('is a valid configuration document', () => {
    // Prepare
    const readme = readFileSync('README.md', 'utf8');
    const example = /\*\*Configuration\.\*\*[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];

    // Act
    const config = MemoryHubConfig.parse(JSON.parse(example ?? 'null'));

    // Assess
    expect(config.agents).not.toEqual({});
  });
});

describe('Document: the configuration parameter’s initial value', () => {
  // The document 4233b7e's stack wrote into the parameter, compact, as CloudFormation deployed it.
  const deployed = JSON.stringify(
    JSON.parse(readFileSync('test/fixtures/deployed/default-config.4233b7e.json', 'utf8')),
  );

  it('is what the previous release deployed, in the template and in the service alike', () => {
    // CloudFormation rewrites the parameter, and the overrides an operator put in it, whenever that string changes.
    expect(CONFIG_PARAMETER_INITIAL_VALUE).toBe(deployed);
    expect(INITIAL_PARAMETER_VALUE).toBe(CONFIG_PARAMETER_INITIAL_VALUE);
  });

  it('is read by the service as no overrides, and any other text as the operator wrote it', () => {
    expect(overridesIn(INITIAL_PARAMETER_VALUE)).toBe('{}');
    expect(overridesIn(` ${INITIAL_PARAMETER_VALUE}`)).toBe(` ${INITIAL_PARAMETER_VALUE}`);
    expect(overridesIn('{"learning":{"windowDays":120}}')).toBe('{"learning":{"windowDays":120}}');
  });
});
