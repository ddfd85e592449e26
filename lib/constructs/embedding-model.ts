import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** What the functions are told: the Bedrock model that embeds text, and the dimensions of its vectors. */
export const EMBEDDING_MODEL_VARIABLE = 'MEMORY_HUB_EMBEDDING_MODEL_ID';
export const EMBEDDING_DIMENSIONS_VARIABLE = 'MEMORY_HUB_EMBEDDING_DIMENSIONS';

/** The embedding models the Bedrock adapter knows the request body of, and the dimensions each embeds in. */
const MODELS: readonly { readonly pattern: RegExp; readonly dimensions: readonly number[] }[] = [
  { pattern: /^amazon\.titan-embed-text-v2:\d+$/, dimensions: [256, 512, 1024] },
  { pattern: /^cohere\.embed-(english|multilingual)-v3$/, dimensions: [1024] },
];

export interface EmbeddingModelProps {
  /** A foundation model id: `amazon.titan-embed-text-v2:0`, `cohere.embed-english-v3`, `cohere.embed-multilingual-v3`. */
  readonly modelId: string;
  /** Titan V2: 256, 512 or 1024; Cohere v3: 1024. @default 1024 */
  readonly dimensions?: number;
}

/**
 * The opt-in Bedrock embedding model of the semantic strategy: no resource of its own (foundation models are the
 * region's), only the permission to invoke that one model and the variables that name it. Without it the
 * functions embed with the model-free default (feature hashing). Model access must be granted in the Bedrock
 * console of the account and region first.
 */
export class EmbeddingModel extends Construct {
  public readonly modelId: string;
  public readonly dimensions: number;
  /** `arn:{partition}:bedrock:{region}::foundation-model/{modelId}`: the only resource a grant names. */
  public readonly modelArn: string;

  constructor(scope: Construct, id: string, props: EmbeddingModelProps) {
    super(scope, id);
    const model = MODELS.find(({ pattern }) => pattern.test(props.modelId));
    if (!model)
      throw new Error(
        `Unknown embedding model "${props.modelId}": amazon.titan-embed-text-v2:0, cohere.embed-english-v3 or cohere.embed-multilingual-v3`,
      );
    const dimensions = props.dimensions ?? 1024;
    if (!model.dimensions.includes(dimensions))
      throw new Error(`${props.modelId} embeds in ${model.dimensions.join(', ')} dimensions, not ${dimensions}`);
    this.modelId = props.modelId;
    this.dimensions = dimensions;
    const stack = Stack.of(this);
    this.modelArn = `arn:${stack.partition}:bedrock:${stack.region}::foundation-model/${props.modelId}`;
  }

  /** Lets `fn` invoke the model (and only it), and tells it which model and how many dimensions. */
  grantInvoke(fn: IFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [this.modelArn] }));
    if ('addEnvironment' in fn && typeof fn.addEnvironment === 'function') {
      fn.addEnvironment(EMBEDDING_MODEL_VARIABLE, this.modelId);
      fn.addEnvironment(EMBEDDING_DIMENSIONS_VARIABLE, String(this.dimensions));
    }
  }
}
