import { Lazy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnAccessPolicy, CfnCollection, CfnSecurityPolicy } from 'aws-cdk-lib/aws-opensearchserverless';
import { Construct } from 'constructs';

/** What the functions are told: the collection's endpoint and the deployment's index in it. */
export const SEARCH_ENDPOINT_VARIABLE = 'MEMORY_HUB_SEARCH_ENDPOINT';
export const SEARCH_INDEX_VARIABLE = 'MEMORY_HUB_SEARCH_INDEX';
export const DEFAULT_SEARCH_INDEX = 'memory-hub-search';

/** Collection and policy names: 3–32 characters, lower-case letters, digits and hyphens, a letter first. */
const SERVERLESS_NAME = /^[a-z][a-z0-9-]{2,31}$/;

/** Index permissions: what a search reads, and what the consumer and the rebuild also write. */
const SEARCH_PERMISSIONS = ['aoss:DescribeIndex', 'aoss:ReadDocument'];
const INDEXING_PERMISSIONS = ['aoss:CreateIndex', 'aoss:DescribeIndex', 'aoss:ReadDocument', 'aoss:WriteDocument'];

export interface SearchCollectionProps {
  readonly stage: string;
  /** @default `memory-hub-{stage}` */
  readonly collectionName?: string;
  /** The tenant's key: the collection is encrypted with it. */
  readonly encryptionKey: IKey;
  /** @default DEFAULT_SEARCH_INDEX */
  readonly indexName?: string;
}

/**
 * The opt-in OpenSearch Serverless search index: a VECTORSEARCH collection encrypted with the tenant's key, a network
 * policy, and a data-access policy naming only the functions granted here, each for only its index and only the
 * permissions it needs (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-data-access.html).
 * In it the collection's encryption is the boundary: documents are plaintext to the collection (see README).
 */
export class SearchCollection extends Construct {
  public readonly collection: CfnCollection;
  public readonly encryptionPolicy: CfnSecurityPolicy;
  public readonly networkPolicy: CfnSecurityPolicy;
  public readonly accessPolicy: CfnAccessPolicy;
  public readonly collectionName: string;
  public readonly indexName: string;
  readonly #searchers: string[] = [];
  readonly #indexers: string[] = [];

  constructor(scope: Construct, id: string, props: SearchCollectionProps) {
    super(scope, id);
    const name = props.collectionName ?? `memory-hub-${props.stage}`;
    // The policies' names add at most four characters.
    if (!SERVERLESS_NAME.test(name) || name.length > 28)
      throw new Error(`Invalid collection name "${name}": 3–28 lower-case letters, digits or hyphens, a letter first`);
    this.collectionName = name;
    this.indexName = props.indexName ?? DEFAULT_SEARCH_INDEX;
    const collectionResource = [`collection/${name}`];

    // https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-encryption.html
    this.encryptionPolicy = new CfnSecurityPolicy(this, 'EncryptionPolicy', {
      name: `${name}-enc`,
      type: 'encryption',
      description: 'The search collection is encrypted with the tenant key',
      policy: Stack.of(this).toJsonString({
        Rules: [{ ResourceType: 'collection', Resource: collectionResource }],
        AWSOwnedKey: false,
        KmsARN: props.encryptionKey.keyArn,
      }),
    });
    // The functions run outside a VPC: the endpoint is public, and every request is SigV4-signed and checked
    // against IAM and the data-access policy. No dashboards access is opened.
    // https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-network.html
    this.networkPolicy = new CfnSecurityPolicy(this, 'NetworkPolicy', {
      name: `${name}-net`,
      type: 'network',
      description: 'The search collection endpoint, reachable with IAM-signed requests only',
      policy: Stack.of(this).toJsonString([
        { Rules: [{ ResourceType: 'collection', Resource: collectionResource }], AllowFromPublic: true },
      ]),
    });
    this.collection = new CfnCollection(this, 'Collection', {
      name,
      type: 'VECTORSEARCH',
      description: `Memory Hub (${props.stage}) search index`,
    });
    this.collection.addDependency(this.encryptionPolicy);
    this.collection.addDependency(this.networkPolicy);

    const indexResource = [`index/${name}/${this.indexName}`];
    this.accessPolicy = new CfnAccessPolicy(this, 'AccessPolicy', {
      name: `${name}-data`,
      type: 'data',
      description: 'Only the retrieval functions, on the deployment index only',
      policy: Lazy.string({
        produce: () =>
          Stack.of(this).toJsonString(
            [
              { principals: this.#searchers, permissions: SEARCH_PERMISSIONS },
              { principals: this.#indexers, permissions: INDEXING_PERMISSIONS },
            ]
              .filter(({ principals }) => principals.length > 0)
              .map(({ principals, permissions }) => ({
                Rules: [{ ResourceType: 'index', Resource: indexResource, Permission: permissions }],
                Principal: principals,
              })),
          ),
      }),
    });
    this.node.addValidation({
      validate: () =>
        this.#searchers.length + this.#indexers.length === 0 ? ['No function is granted the search collection'] : [],
    });
  }

  get endpoint(): string {
    return this.collection.attrCollectionEndpoint;
  }

  /** Lets `fn` search the index: read documents, through the collection's API. */
  grantSearch(fn: IFunction): void {
    this.#grant(fn, this.#searchers);
  }

  /** Lets `fn` create the index and write its documents, as the index consumer and the rebuild do. */
  grantIndexing(fn: IFunction): void {
    this.#grant(fn, this.#indexers);
  }

  #grant(fn: IFunction, principals: string[]): void {
    if (!fn.role) throw new Error(`${fn.node.path} has no role to grant the search collection to`);
    principals.push(fn.role.roleArn);
    // aoss:APIAccessAll is the only IAM action of the data plane; the data-access policy says which operations.
    fn.addToRolePolicy(new PolicyStatement({ actions: ['aoss:APIAccessAll'], resources: [this.collection.attrArn] }));
    if ('addEnvironment' in fn && typeof fn.addEnvironment === 'function') {
      fn.addEnvironment(SEARCH_ENDPOINT_VARIABLE, this.endpoint);
      fn.addEnvironment(SEARCH_INDEX_VARIABLE, this.indexName);
    }
  }
}
