import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../../lambdas/app/capabilities.ts';
import { retrievalModule } from '../../../lambdas/capabilities/retrieval/retrieval.module.ts';
import { SEARCHED_MODULES } from '../../../lambdas/capabilities/retrieval/searched-modules.ts';
import { composeService } from '../../../lambdas/composition/compose-service.ts';
import { inMemoryPorts } from '../../support/in-memory-backend.ts';

const searchableKindsOf = (modules: readonly { recordKinds?: readonly { name: string; searchable: boolean }[] }[]) =>
  modules
    .flatMap((module) => module.recordKinds ?? [])
    .filter((kind) => kind.searchable)
    .map((kind) => kind.name)
    .sort();

describe('The modules retrieval’s functions build', () => {
  it('index every searchable kind of the service’s capabilities, and nothing else', () => {
    expect(searchableKindsOf(SEARCHED_MODULES)).toEqual(searchableKindsOf(CAPABILITIES));
  });

  it('compose into a service that has a projection for each of those kinds and serves only search', () => {
    // Act
    const service = composeService(inMemoryPorts().ports, [retrievalModule, ...SEARCHED_MODULES]);

    // Assess
    expect(Object.keys(service.handlers).sort()).toEqual(['assembleContext', 'search']);
    expect(Object.keys(service.system.consumers).sort()).toEqual(['head-projection', 'search-index']);
  });
});
