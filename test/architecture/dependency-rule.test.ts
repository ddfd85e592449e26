import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

const sourceFiles = (folder: string): string[] => {
  const absolute = join(ROOT, folder);
  return readdirSync(absolute).flatMap((entry) => {
    const path = join(absolute, entry);
    if (statSync(path).isDirectory()) return sourceFiles(relative(ROOT, path));
    return path.endsWith('.ts') ? [path] : [];
  });
};

/** A relative import resolved to a project path (`lambdas/kernel/...`), or a package import as written. */
interface Import {
  readonly internal: boolean;
  readonly target: string;
}

const importsOf = (file: string): Import[] => {
  const source = readFileSync(file, 'utf8');
  const pattern = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  return [...source.matchAll(pattern)].map((match) => {
    const specifier = (match[1] ?? match[2]) as string;
    return specifier.startsWith('.')
      ? { internal: true, target: relative(ROOT, resolve(dirname(file), specifier)) }
      : { internal: false, target: specifier };
  });
};

const violations = (folder: string, allowed: (imported: Import) => boolean): string[] =>
  sourceFiles(folder).flatMap((file) =>
    importsOf(file)
      .filter((imported) => !allowed(imported))
      .map((imported) => `${relative(ROOT, file)} imports ${imported.target}`),
  );

const packageOf = (specifier: string): string =>
  (specifier.startsWith('@') ? specifier.split('/').slice(0, 2) : specifier.split('/').slice(0, 1)).join('/');

describe('Architecture: dependency rule', () => {
  it('keeps the core free of AWS, adapters, handlers, HTTP and local mode', () => {
    const corePackages = new Set(['zod', 'ulid', 'blakejs']);
    const found = violations('lambdas/kernel', ({ internal, target }) =>
      internal
        ? target.startsWith('lambdas/kernel/')
        : target.startsWith('node:') || corePackages.has(packageOf(target)),
    );
    expect(found).toEqual([]);
  });

  it('keeps the HTTP layer free of adapters, handlers and AWS SDKs', () => {
    const found = violations('lambdas/http', ({ internal, target }) =>
      internal
        ? target.startsWith('lambdas/http/') || target.startsWith('lambdas/kernel/')
        : !['@aws-sdk', '@aws-crypto', 'dynalite'].some((prefix) => target.startsWith(prefix)),
    );
    expect(found).toEqual([]);
  });

  it('keeps adapters from reaching up into handlers, HTTP or local mode', () => {
    const found = violations('lambdas/adapters', ({ internal, target }) =>
      internal ? target.startsWith('lambdas/adapters/') || target.startsWith('lambdas/kernel/') : true,
    );
    expect(found).toEqual([]);
  });

  it('keeps the CDK app from importing runtime code', () => {
    const found = violations('lib', ({ internal, target }) => !internal || target.startsWith('lib/'));
    expect(found).toEqual([]);
  });

  it('sees the imports it is checking (the rule would catch a violation)', () => {
    const adapters = sourceFiles('lambdas/adapters').flatMap(importsOf);
    expect(adapters).toContainEqual({ internal: false, target: '@aws-sdk/client-dynamodb' });
    expect(adapters.some(({ internal, target }) => internal && target.startsWith('lambdas/kernel/'))).toBe(true);
  });
});
