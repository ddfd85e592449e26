import { existsSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import {
  type HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  type HttpRoute,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import {
  type ApiFunctionSpec,
  type ApiOperation,
  groupOperationsByFunction,
  type OpenApiDocument,
  readApiOperations,
} from '../openapi-operations.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

export interface ApiFunctionsProps {
  /** Deployment stage, passed to every function as `MEMORY_HUB_STAGE`. */
  readonly stage: string;
  /** The parsed OpenAPI document; every operation carries an `x-memory-hub` extension. */
  readonly document: OpenApiDocument;
  /** The directory the `x-memory-hub.lambda.entry` paths are relative to. */
  readonly projectRoot: string;
  readonly httpApi: HttpApi;
  /** The authorizer of authenticated operations. */
  readonly authorizer: IHttpRouteAuthorizer;
  /** The memory table; read and write functions get data-plane grants on it and its indexes. */
  readonly table: Table;
  /** The customer-managed key of the table and of the envelope encryption. */
  readonly encryptionKey: IKey;
  /** Tuning shared by every API function; each has explicit defaults in `ServiceFunction`. */
  readonly functionProps?: Pick<ServiceFunctionProps, 'memorySize' | 'timeout' | 'logRetention'>;
}

/**
 * The API's Lambda functions and routes, derived from the OpenAPI document: one function per distinct
 * (entry, handler) pair, every route that names it attached to it.
 *
 * Grants follow the operation's declared `access`:
 * - `none`: nothing beyond its own log group;
 * - `read`: `table.grantReadData` + `key.grantDecrypt`;
 * - `write`: `table.grantReadWriteData` + `key.grantEncryptDecrypt` (which includes `GenerateDataKey*`,
 *   needed to create data keys for envelope encryption).
 */
export class ApiFunctions extends Construct {
  /** Functions by `entry#handler`. */
  public readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** Every route created, one per operation of the document. */
  public readonly routes: readonly HttpRoute[];
  /** What was read from the document. */
  public readonly specs: readonly ApiFunctionSpec[];

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);
    this.specs = groupOperationsByFunction(readApiOperations(props.document));

    const functions = new Map<string, ServiceFunction>();
    const routes: HttpRoute[] = [];
    const usedIds = new Map<string, string>();
    for (const spec of this.specs) {
      const functionId = functionIdOf(spec);
      const clash = usedIds.get(functionId);
      if (clash !== undefined) throw new Error(`${spec.key} and ${clash} would both be named ${functionId}`);
      usedIds.set(functionId, spec.key);

      const serviceFunction = new ServiceFunction(this, functionId, {
        ...props.functionProps,
        entry: this.resolveEntry(props.projectRoot, spec.entry),
        handler: spec.handler,
        description: `${spec.handler} (${spec.operations.map(routeKeyOf).join(', ')})`.slice(0, 256),
        environment: {
          MEMORY_HUB_STAGE: props.stage,
          MEMORY_HUB_TABLE_NAME: props.table.tableName,
          MEMORY_HUB_KEY_ARN: props.encryptionKey.keyArn,
        },
      });
      this.grantAccess(serviceFunction, spec, props);
      functions.set(spec.key, serviceFunction);

      const integration = new HttpLambdaIntegration(`${functionId}Integration`, serviceFunction.function);
      for (const operation of spec.operations) {
        const [route] = props.httpApi.addRoutes({
          path: operation.path,
          methods: [HttpMethod[operation.method]],
          integration,
          authorizer: operation.authenticated ? props.authorizer : new HttpNoneAuthorizer(),
        });
        if (route === undefined) throw new Error(`No route was created for ${routeKeyOf(operation)}`);
        if (!operation.authenticated) {
          Validations.of(route).acknowledge({
            id: 'AwsSolutions::AwsSolutions-APIG4',
            reason: `${routeKeyOf(operation)} is public by contract (authenticated: false in the OpenAPI document); its function's storage access is "${spec.access}".`,
          });
        }
        routes.push(route);
      }
    }
    this.functions = functions;
    this.routes = routes;
  }

  private resolveEntry(projectRoot: string, entry: string): string {
    const absolute = resolve(projectRoot, entry);
    const fromRoot = relative(projectRoot, absolute);
    if (fromRoot.startsWith('..') || isAbsolute(fromRoot)) throw new Error(`${entry} is outside ${projectRoot}`);
    if (!existsSync(absolute)) throw new Error(`The OpenAPI document names ${entry}, which does not exist`);
    return absolute;
  }

  private grantAccess(serviceFunction: ServiceFunction, spec: ApiFunctionSpec, props: ApiFunctionsProps): void {
    const { table, encryptionKey } = props;
    const role = serviceFunction.role;
    switch (spec.access) {
      case 'none':
        return;
      case 'read':
        table.grantReadData(role);
        encryptionKey.grantDecrypt(role);
        break;
      case 'write':
        table.grantReadWriteData(role);
        encryptionKey.grantEncryptDecrypt(role);
        Validations.of(role).acknowledge(
          {
            id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
            reason:
              'From key.grantEncryptDecrypt on the one customer-managed key: envelope encryption creates data keys (GenerateDataKey, GenerateDataKeyWithoutPlaintext).',
          },
          {
            id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
            reason: 'From key.grantEncryptDecrypt on the one customer-managed key (ReEncryptFrom/To on that key only).',
          },
        );
        break;
    }
    Validations.of(role).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(table).getLogicalId(table.node.defaultChild as CfnElement)}.Arn>/index/*]`,
      reason: `From table.grant${spec.access === 'read' ? 'ReadData' : 'ReadWriteData'}: queries of this table's own indexes (the outbox index), no other table.`,
    });
  }
}

const routeKeyOf = (operation: ApiOperation): string => `${operation.method} ${operation.path}`;

/** `lambdas/handlers/notes.lambda.ts` + `getNote` → `NotesGetNote`: stable while routes come and go. */
function functionIdOf(spec: ApiFunctionSpec): string {
  const module = basename(spec.entry).replace(/(\.lambda)?\.ts$/, '');
  return `${pascalCase(module)}${pascalCase(spec.handler)}`;
}

function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
