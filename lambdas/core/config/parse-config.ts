import type { z } from 'zod';
import { type ConfigProblem, InvalidConfigError } from './config.errors.ts';
import { frozenConfig, MemoryHubConfig } from './memory-hub-config.ts';

/** Parses a configuration document's text (JSON) from `source`, naming every field that is wrong. */
export const parseConfigDocument = (text: string, source: string): MemoryHubConfig => {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new InvalidConfigError(source, [{ path: '(root)', message: `not valid JSON (${(error as Error).message})` }]);
  }
  return parseConfig(document, source);
};

/** Validates an already parsed configuration document, naming every wrong field; the result is frozen. */
export const parseConfig = (document: unknown, source: string): MemoryHubConfig => {
  const parsed = MemoryHubConfig.safeParse(document);
  if (parsed.success) return frozenConfig(parsed.data);
  throw new InvalidConfigError(source, parsed.error.issues.flatMap(problemsOf));
};

const pathOf = (path: readonly PropertyKey[]): string => path.map(String).join('.') || '(root)';

const problemsOf = (issue: z.core.$ZodIssue): ConfigProblem[] => {
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({ path: pathOf([...issue.path, key]), message: 'unknown setting' }));
  if (issue.code === 'invalid_key')
    return [{ path: pathOf(issue.path), message: issue.issues[0]?.message ?? issue.message }];
  return [{ path: pathOf(issue.path), message: issue.message }];
};
