import { readFile } from 'node:fs/promises';
import { DEFAULT_CONFIG, MemoryHubConfig } from '../../core/config/memory-hub-config.ts';

export class InvalidConfigError extends Error {
  constructor(source: string, problems: string[]) {
    super(`Invalid configuration in ${source}: ${problems.join('; ')}`);
    this.name = 'InvalidConfigError';
  }
}

/** Parses a configuration document, naming every field that is wrong. */
export const parseConfig = (document: unknown, source: string): MemoryHubConfig => {
  const parsed = MemoryHubConfig.safeParse(document);
  if (parsed.success) return parsed.data;
  throw new InvalidConfigError(
    source,
    parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
  );
};

/** Local mode's stand-in for the SSM parameters: a JSON file, or the defaults when no file is named. */
export const loadConfigFile = async (path: string | undefined): Promise<MemoryHubConfig> => {
  if (!path) return DEFAULT_CONFIG;
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InvalidConfigError(path, [(error as Error).message]);
  }
  return parseConfig(document, path);
};
