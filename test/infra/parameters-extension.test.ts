import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

/** The environment variables naming an SSM parameter a function reads (the configuration, the client scopes). */
const PARAMETER_VARIABLES = ['MEMORY_HUB_CONFIG_PARAMETER', 'MEMORY_HUB_API_CLIENTS_PARAMETER'] as const;

/** The extension's settings every reader runs it with (`PARAMETERS_EXTENSION` in lib/constructs/service-function.ts). */
const EXTENSION_SETTINGS = {
  PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'false',
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
  PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL: 'warn',
};

interface FunctionResource {
  readonly Properties: {
    readonly Handler: string;
    readonly Architectures?: string[];
    readonly Layers?: unknown[];
    readonly Environment?: { readonly Variables?: Record<string, unknown> };
  };
}

const functionsOf = (synthesized: SynthesizedApp) =>
  Object.values(synthesized.template.findResources('AWS::Lambda::Function') as Record<string, FunctionResource>);

const readsParameters = (fn: FunctionResource) =>
  PARAMETER_VARIABLES.some((name) => fn.Properties.Environment?.Variables?.[name] !== undefined);

describe('Construct: ServiceFunction, the Parameters and Secrets extension across the app', () => {
  describe('in a template for no region in particular', () => {
    let synthesized: SynthesizedApp;

    beforeAll(() => {
      // Prepare & Act
      synthesized = synthesizeApp();
    });
    afterAll(() => synthesized.dispose());

    it('runs the extension, its cache off, in every function that reads a parameter, and in no other', () => {
      // Act
      const functions = functionsOf(synthesized);
      const readers = functions.filter(readsParameters);

      // Assess
      expect(readers.map((fn) => fn.Properties.Handler)).toEqual(
        expect.arrayContaining([
          'index.handler',
          'index.relayOutboxStream',
          'index.sweepOutbox',
          'index.runWorkflowStep',
        ]),
      );
      for (const fn of readers) {
        expect(fn.Properties.Architectures, fn.Properties.Handler).toEqual(['arm64']);
        expect(fn.Properties.Layers, fn.Properties.Handler).toHaveLength(1);
        expect(fn.Properties.Environment?.Variables, fn.Properties.Handler).toMatchObject(EXTENSION_SETTINGS);
      }
      for (const fn of functions.filter((candidate) => !readsParameters(candidate))) {
        expect(fn.Properties.Layers, fn.Properties.Handler).toBeUndefined();
        expect(
          Object.keys(fn.Properties.Environment?.Variables ?? {}).filter((name) =>
            name.startsWith('PARAMETERS_SECRETS'),
          ),
        ).toEqual([]);
      }
      expect(functions.length - readers.length).toBeGreaterThan(0);
    });

    it("takes the arm64 layer of the stack's region from CDK's mapping of the regions that publish it", () => {
      // Act
      const layers = functionsOf(synthesized)
        .filter(readsParameters)
        .map((fn) => JSON.stringify(fn.Properties.Layers));
      const mappings = JSON.stringify(synthesized.template.toJSON().Mappings);

      // Assess
      for (const layer of layers) expect(layer).toMatch(/"Fn::FindInMap":\[".*",\{"Ref":"AWS::Region"\}/);
      expect(mappings).toContain(
        'arn:aws:lambda:eu-west-1:015030872274:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:4',
      );
      expect(mappings).not.toMatch(/AWS-Parameters-and-Secrets-Lambda-Extension:\d/);
    });
  });

  describe('in a template for eu-west-1', () => {
    let synthesized: SynthesizedApp;

    beforeAll(() => {
      synthesized = synthesizeApp({ appOptions: { env: { region: 'eu-west-1' } } });
    });
    afterAll(() => synthesized.dispose());

    it("names that region's arm64 layer", () => {
      // Act
      const layers = new Set(
        functionsOf(synthesized)
          .filter(readsParameters)
          .map((fn) => JSON.stringify(fn.Properties.Layers)),
      );

      // Assess
      expect([...layers]).toEqual([
        JSON.stringify([
          'arn:aws:lambda:eu-west-1:015030872274:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:4',
        ]),
      ]);
    });
  });

  describe('in a region CDK has no layer for, with the layer named in the context', () => {
    const layerArn =
      'arn:aws:lambda:eu-central-2:123456789012:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12';
    let synthesized: SynthesizedApp;

    beforeAll(() => {
      synthesized = synthesizeApp({
        appOptions: { env: { region: 'eu-central-2' } },
        context: { parametersExtensionLayerArn: layerArn },
      });
    });
    afterAll(() => synthesized.dispose());

    it('runs that layer, with the same settings, in every function that reads a parameter', () => {
      // Act
      const readers = functionsOf(synthesized).filter(readsParameters);

      // Assess
      expect(readers.length).toBeGreaterThan(0);
      for (const fn of readers) {
        expect(fn.Properties.Layers).toEqual([layerArn]);
        expect(fn.Properties.Environment?.Variables).toMatchObject(EXTENSION_SETTINGS);
      }
    });
  });

  it('refuses a context value that is not a layer version ARN, naming the context key', () => {
    // Act & Assess
    expect(() => synthesizeApp({ context: { parametersExtensionLayerArn: 'latest' } })).toThrow(
      /parametersExtensionLayerArn must be a Lambda layer version ARN/,
    );
  });
});
