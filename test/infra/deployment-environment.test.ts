import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Token } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chosenEnvironment } from '../../lib/deployment-environment.ts';
import { cdkJsonContext, PROJECT_ROOT } from './support/fixture-app.ts';

/** Every AWS region name in a text (`us-east-1`, `eu-west-1`, `us-gov-west-1`, `ap-southeast-4`, …). */
const REGION_NAME = /\b(?:af|ap|ca|cn|eu|il|me|mx|sa|us)-(?:gov-|iso[a-z]*-)?[a-z]+-\d\b/g;
/** What the CLI would put in CDK_DEFAULT_ACCOUNT for credentials of this (made-up) account. */
const CREDENTIALS_ACCOUNT = '111122223333';

/**
 * Runs `bin/app.ts` as `npx cdk synth` does: the CLI's context in CDK_CONTEXT_JSON, the output directory in
 * CDK_OUTDIR and its idea of the environment in CDK_DEFAULT_*; bundling skipped (the template is what counts).
 */
function synthesizeWithCli(variables: Record<string, string>): { template: string; dispose: () => void } {
  const outdir = mkdtempSync(join(tmpdir(), 'memory-hub-env-'));
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('CDK_')),
  );
  const run = spawnSync(process.execPath, [resolve(PROJECT_ROOT, 'bin/app.ts')], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: {
      ...inherited,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] }),
      ...variables,
    },
  });
  if (run.status !== 0) throw new Error(`bin/app.ts failed: ${run.stderr}`);
  return {
    template: readFileSync(join(outdir, 'MemoryHub-dev.template.json'), 'utf8'),
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}

describe('App: bin/app.ts, as the CDK CLI runs it', () => {
  describe('with no region chosen (the CLI falls back to us-east-1 and passes it on as CDK_DEFAULT_REGION)', () => {
    let synthesized: ReturnType<typeof synthesizeWithCli>;

    beforeAll(() => {
      // Prepare & Act: what the CLI sets on a machine with credentials but no configured region
      synthesized = synthesizeWithCli({ CDK_DEFAULT_REGION: 'us-east-1', CDK_DEFAULT_ACCOUNT: CREDENTIALS_ACCOUNT });
    });
    afterAll(() => synthesized.dispose());

    it('names no region outside the extension layer’s mapping: issuer URL and ARNs take the stack’s own AWS::Region', () => {
      // Prepare: the one mapping is CDK's table of the Parameters and Secrets extension's layer in each region
      // that publishes it, looked up by the stack's region (lib/constructs/service-function.ts)
      const { Mappings: mappings = {}, ...rest } = JSON.parse(synthesized.template) as { Mappings?: object };
      const layerArns = Object.values(mappings).flatMap((byRegion) =>
        Object.values(byRegion as Record<string, Record<string, string>>).flatMap(Object.values),
      );

      // Assess
      expect(JSON.stringify(rest).match(REGION_NAME) ?? []).toEqual([]);
      expect(synthesized.template).toMatch(/"Ref":\s*"AWS::Region"/);
      expect(layerArns.length).toBeGreaterThan(0);
      for (const arn of layerArns)
        expect(arn).toMatch(
          /^arn:aws[\w-]*:lambda:[\w-]+:\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/,
        );
    });

    it('names no account either: the credentials of the machine that synthesized it are no choice', () => {
      // Assess
      expect(synthesized.template).not.toContain(CREDENTIALS_ACCOUNT);
      expect(synthesized.template).toMatch(/"Ref":\s*"AWS::AccountId"/);
    });
  });

  describe('with AWS_REGION=eu-west-1', () => {
    let synthesized: ReturnType<typeof synthesizeWithCli>;

    beforeAll(() => {
      // Prepare & Act
      synthesized = synthesizeWithCli({
        AWS_REGION: 'eu-west-1',
        CDK_DEFAULT_REGION: 'eu-west-1',
        CDK_DEFAULT_ACCOUNT: CREDENTIALS_ACCOUNT,
      });
    });
    afterAll(() => synthesized.dispose());

    it('names eu-west-1, in the Cognito issuer among others, and no other region', () => {
      // Prepare
      const regions = new Set(synthesized.template.match(REGION_NAME));

      // Assess
      expect([...regions]).toEqual(['eu-west-1']);
      expect(synthesized.template).toMatch(/https:\/\/cognito-idp\.eu-west-1\.amazonaws\.com\//);
    });
  });
});

describe('Function: chosenEnvironment', () => {
  const noContext = () => undefined;

  it('is environment-agnostic when only the CLI’s fallback is set', () => {
    // Act
    const environment = chosenEnvironment({
      context: noContext,
      variables: { CDK_DEFAULT_REGION: 'us-east-1', CDK_DEFAULT_ACCOUNT: CREDENTIALS_ACCOUNT },
    });

    // Assess
    expect(environment).toEqual({});
  });

  it('takes the region from AWS_REGION, then AWS_DEFAULT_REGION', () => {
    // Act & Assess
    expect(chosenEnvironment({ context: noContext, variables: { AWS_DEFAULT_REGION: 'eu-central-1' } })).toEqual({
      region: 'eu-central-1',
    });
    expect(
      chosenEnvironment({
        context: noContext,
        variables: { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-central-1' },
      }),
    ).toEqual({ region: 'eu-west-1' });
  });

  it('prefers the context (`-c region=… -c account=…`) over the variables', () => {
    // Prepare
    const context = (key: string) => ({ region: 'ap-southeast-2', account: '444455556666' })[key];

    // Act
    const environment = chosenEnvironment({ context, variables: { AWS_REGION: 'eu-west-1' } });

    // Assess
    expect(environment).toEqual({ region: 'ap-southeast-2', account: '444455556666' });
  });

  it('refuses a region or an account that is not one, naming where it came from', () => {
    // Act & Assess
    expect(() => chosenEnvironment({ context: noContext, variables: { AWS_REGION: 'Europe' } })).toThrow(
      /AWS_REGION "Europe" is not an AWS region name/,
    );
    expect(() =>
      chosenEnvironment({ context: (key) => (key === 'account' ? '12' : undefined), variables: {} }),
    ).toThrow(/context account "12" is not a 12-digit AWS account id/);
  });

  it('leaves the stack’s region a token when none is chosen', async () => {
    // Prepare
    const { createMemoryHubApp } = await import('../../lib/memory-hub-app.ts');

    // Act
    const { stack } = createMemoryHubApp({
      appProps: { context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } },
      environmentVariables: { CDK_DEFAULT_REGION: 'us-east-1' },
    });

    // Assess
    expect(Token.isUnresolved(stack.region)).toBe(true);
    expect(Token.isUnresolved(stack.account)).toBe(true);
  });
});
