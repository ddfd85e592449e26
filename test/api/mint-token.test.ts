import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

const mint = async (args: string[], dataDir: string) =>
  run(process.execPath, ['bin/mint-token.ts', ...args], { env: { ...process.env, MEMORY_HUB_DATA_DIR: dataDir } });

describe('Command: npm run token', () => {
  it('prints only a JWT carrying the requested claims', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'memory-hub-token-'));

    const { stdout, stderr } = await mint(
      [
        '--tenant',
        'acme',
        '--sub',
        'alice',
        '--groups',
        'project:p7:member,org:admin',
        '--client',
        'coder-app',
        '--ttl',
        '120',
      ],
      dataDir,
    );

    expect(stderr).toBe('');
    expect(stdout).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/);
    const claims = JSON.parse(Buffer.from(stdout.split('.')[1] as string, 'base64url').toString());
    expect(claims).toMatchObject({
      sub: 'alice',
      'custom:tenant': 'acme',
      client_id: 'coder-app',
      token_use: 'access',
      'cognito:groups': ['project:p7:member', 'org:admin'],
    });
    expect(claims.exp - claims.iat).toBe(120);
  });

  it('grants every scope by default, as the operator client would hold them', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'memory-hub-token-'));

    // Act
    const { stdout } = await mint(['--tenant', 'acme', '--sub', 'alice'], dataDir);

    // Assess
    const claims = JSON.parse(Buffer.from(stdout.split('.')[1] as string, 'base64url').toString());
    expect(claims.scope).toBe('memory-hub/memory.read memory-hub/memory.write memory-hub/memory.admin');
  });

  it('mints a token with only the scopes --scopes names, space-separated as Cognito writes them', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'memory-hub-token-'));

    // Act
    const readOnly = await mint(['--tenant', 'acme', '--sub', 'alice', '--scopes', 'memory-hub/memory.read'], dataDir);
    const readWrite = await mint(
      ['--tenant', 'acme', '--sub', 'alice', '--scopes', 'memory-hub/memory.read, memory-hub/memory.write'],
      dataDir,
    );

    // Assess
    const scopeOf = (jwt: string) =>
      JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString()).scope as string;
    expect(scopeOf(readOnly.stdout)).toBe('memory-hub/memory.read');
    expect(scopeOf(readWrite.stdout)).toBe('memory-hub/memory.read memory-hub/memory.write');
  });

  it.each([
    [['--sub', 'alice'], /--tenant and --sub are required/],
    [['--tenant', 'acme/x', '--sub', 'alice'], /--tenant must be/],
    [['--tenant', 'acme', '--sub', 'alice', '--groups', 'admins'], /--groups takes/],
    [['--tenant', 'acme', '--sub', 'alice', '--ttl', 'forever'], /--ttl must be/],
    [['--tenant', 'acme', '--sub', 'alice', '--ttl', '86401'], /--ttl must be/],
    [['--tenant', 'acme', '--sub', 'alice', '--groups', 'project:p7:member org:admin'], /--groups takes/],
    [['--tenant', 'acme', '--sub', 'alice', '--scopes', 'memory-hub/everything'], /--scopes takes/],
    [
      ['--tenant', 'acme', '--sub', 'alice', '--scopes', 'memory-hub/memory.read memory-hub/memory.write'],
      /--scopes takes/,
    ],
    [['--tenant', 'acme', '--sub', 'alice', '--scopes', ''], /--scopes takes/],
    [['--tenant', 'acme', '--sub', 'alice', '--colour', 'blue'], /Unknown option/],
  ])('refuses %j with a clear message and exit code 2', async (args, message) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'memory-hub-token-'));

    const failure = await mint(args, dataDir).catch((error: { code: number; stdout: string; stderr: string }) => error);

    expect(failure).toMatchObject({ code: 2, stdout: '' });
    expect((failure as { stderr: string }).stderr).toMatch(message);
  });
});
