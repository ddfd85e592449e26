/**
 * `npm run --silent token -- --tenant acme --sub alice [--groups project:p7:member,org:admin]
 * [--scopes memory-hub/memory.read,memory-hub/memory.write] [--client coder-app] [--ttl 3600]`: the local
 * issuer. Prints only the JWT. Without --scopes the token holds every scope (read, write and admin).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { mintLocalToken } from '../lambdas/local/local-issuer.ts';

/** `a, b,c` → `['a', 'b', 'c']`; an option given but empty stays an empty list, which the issuer refuses. */
const listOption = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

try {
  const { values } = parseArgs({
    options: {
      tenant: { type: 'string' },
      sub: { type: 'string' },
      groups: { type: 'string' },
      scopes: { type: 'string' },
      client: { type: 'string' },
      ttl: { type: 'string' },
    },
    strict: true,
  });
  if (!values.tenant || !values.sub) throw new Error('--tenant and --sub are required');
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  const token = await mintLocalToken(resolve(process.env.MEMORY_HUB_DATA_DIR ?? '.memory-hub'), {
    tenant: values.tenant,
    sub: values.sub,
    groups: values.groups ? listOption(values.groups) : [],
    ...(values.scopes !== undefined && { scopes: listOption(values.scopes) }),
    ...(values.client && { client: values.client }),
    ...(ttl !== undefined && { ttlSeconds: ttl }),
  });
  process.stdout.write(`${token}\n`);
} catch (error) {
  console.error(`token: ${(error as Error).message}`);
  console.error(
    'usage: npm run --silent token -- --tenant ID --sub ID [--groups project:ID:ROLE,org:admin] ' +
      '[--scopes memory-hub/memory.read,memory-hub/memory.write,memory-hub/memory.admin] [--client ID] [--ttl SECONDS]',
  );
  process.exit(2);
}
