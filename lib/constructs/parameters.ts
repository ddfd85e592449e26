import { readFileSync } from 'node:fs';
import { ParameterDataType, ParameterTier, StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';

/** SSM's limit for a Standard parameter value; larger values need the (paid) Advanced tier. */
export const STANDARD_PARAMETER_MAX_BYTES = 4096;
/** SSM's limit for an Advanced parameter value. */
export const ADVANCED_PARAMETER_MAX_BYTES = 8192;

export interface ParametersProps {
  /** Deployment stage; the parameter is `/memory-hub/{stage}/config`. */
  readonly stage: string;
  /**
   * The default configuration: the JSON document generated from the core's configuration schema
   * (`lambdas/generated/default-config.json`). It must be a JSON object.
   */
  readonly defaultConfig: Record<string, unknown>;
}

/**
 * The service's tunable configuration: one SSM String parameter `/memory-hub/{stage}/config` holding a
 * JSON object, created with the defaults. Functions read it at start (cached with a short TTL, validated
 * with the same zod schema as the defaults, keeping the last good value when an edit is invalid).
 *
 * The value is compact JSON; when it outgrows a Standard parameter (4 KB) it moves to the Advanced tier
 * (8 KB, billed per parameter-month) rather than failing the deployment.
 */
export class Parameters extends Construct {
  public readonly config: StringParameter;
  /** The tier chosen for the configuration's size. */
  public readonly configTier: ParameterTier;

  constructor(scope: Construct, id: string, props: ParametersProps) {
    super(scope, id);
    const defaultConfig = props.defaultConfig as unknown;
    if (typeof defaultConfig !== 'object' || defaultConfig === null || Array.isArray(defaultConfig)) {
      throw new Error(`${this.node.path}: the default configuration must be a JSON object`);
    }
    const value = JSON.stringify(defaultConfig);
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > ADVANCED_PARAMETER_MAX_BYTES) {
      throw new Error(`${this.node.path}: the configuration is ${bytes} bytes; an SSM parameter holds at most 8 KB`);
    }
    this.configTier = bytes > STANDARD_PARAMETER_MAX_BYTES ? ParameterTier.ADVANCED : ParameterTier.STANDARD;
    this.config = new StringParameter(this, 'Config', {
      parameterName: `/memory-hub/${props.stage}/config`,
      description: `Memory Hub ${props.stage}: tunable configuration (JSON), validated by the service at start`,
      stringValue: value,
      dataType: ParameterDataType.TEXT,
      tier: this.configTier,
    });
  }
}

/** Reads the generated default-configuration document (data: lib/ never imports the schema itself). */
export function loadDefaultConfig(path: string): Record<string, unknown> {
  const document: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new Error(`${path} is not a JSON object`);
  }
  return document as Record<string, unknown>;
}
