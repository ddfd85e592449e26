import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG_DOCUMENT_PATH, defaultConfigDocument } from '../../../lambdas/app/documents.ts';
import { DEFAULT_CONFIG, MemoryHubConfig } from '../../../lambdas/app/service-tables.ts';

describe('Document: default-config.json', () => {
  const committed: unknown = JSON.parse(readFileSync(DEFAULT_CONFIG_DOCUMENT_PATH, 'utf8'));

  it('is exactly the schema defaults (run `npm run generate` after changing a default)', () => {
    expect(committed).toEqual(defaultConfigDocument());
    expect(committed).toEqual(DEFAULT_CONFIG);
  });

  it('lays its sections out as the previous version deployed them: the parameter’s value string is unchanged', () => {
    // CloudFormation rewrites the parameter, and what operators tuned in it, whenever that string changes.
    const deployed = readFileSync('test/fixtures/deployed/default-config.4233b7e.json', 'utf8');
    expect(JSON.stringify(committed)).toBe(JSON.stringify(JSON.parse(deployed)));
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
