import { existsSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import {
  type HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  type HttpRoute,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  type BackendResources,
  backendEnvironment,
  grantBackendAccess,
  readsConfiguration,
} from '../backend-access.ts';
import { pascalCase } from '../construct-ids.ts';
import {
  type ApiFunctionSpec,
  type ApiOperation,
  groupOperationsByFunction,
  type OpenApiDocument,
  readApiOperations,
} from '../openapi-operations.ts';
import { grantClientQuotaLeases } from './memory-table.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

/** The backend resources (read and write functions get data-plane grants on them), and the API's own. */
export interface ApiFunctionsProps extends BackendResources {
  /** The parsed OpenAPI document; every operation carries an `x-memory-hub` extension. */
  readonly document: OpenApiDocument;
  /** The directory the `x-memory-hub.lambda.entry` paths are relative to. */
  readonly projectRoot: string;
  readonly httpApi: HttpApi;
  /** The authorizer of authenticated operations. */
  readonly authorizer: IHttpRouteAuthorizer;
  /**
   * The workflows' state machines by workflow name. Functions whose operations declare
   * `startsWorkflows` may start any of them and are told their ARNs.
   * @default none: such a function is refused
   */
  readonly stateMachines?: ReadonlyMap<string, IStateMachine>;
  /** Tuning shared by every API function; each has explicit defaults in `ServiceFunction`. */
  readonly functionProps?: Pick<ServiceFunctionProps, 'memorySize' | 'timeout' | 'logRetention'>;
  /** How the request functions are traced. @default REQUEST_TRACING_DEFAULT */
  readonly tracing?: Tracing.ACTIVE | Tracing.PASS_THROUGH;
}

/**
 * Request functions trace only what arrives sampled upstream, not a share of every request of their own: Lambda's active
 * sampling (the first request each second and 5% of the rest, per function, not configurable) recorded about 8%
 * of the requests of the 120/s mix, half a dollar per million, a tenth of what the whole mix costs (BENCHMARKS.md).
 * The background functions trace actively (`SERVICE_FUNCTION_DEFAULTS.tracing`): they run at a few invocations a
 * second, and their traces follow an event through the relay and its consumers. `requestTracing: 'active'` opts in.
 */
export const REQUEST_TRACING_DEFAULT = Tracing.PASS_THROUGH;

/**
 * The API's Lambda functions and routes, derived from the OpenAPI document: one function per distinct
 * (entry, handler) pair, every route that names it attached to it.
 *
 * Grants and environment follow the operation's declared `access` (see `grantBackendAccess`); a function
 * declaring `startsWorkflows` may also start every workflow's state machine, whose ARNs it is given as
 * `MEMORY_HUB_STATE_MACHINES` (a JSON object: workflow name → state machine ARN).
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
          ...backendEnvironment(props, spec.access),
          ...(spec.startsWorkflows ? this.allowStartingWorkflows(spec, props.stateMachines) : {}),
        },
        readsParameters: readsConfiguration(spec.access),
        tracing: props.tracing ?? REQUEST_TRACING_DEFAULT,
      });
      grantBackendAccess(serviceFunction, props, spec.access);
      // Every authenticated operation leases its caller's app client quota; write functions may update already.
      if (spec.access === 'read') grantClientQuotaLeases(props.table, serviceFunction.role);
      if (spec.startsWorkflows) {
        for (const stateMachine of props.stateMachines?.values() ?? []) {
          stateMachine.grantStartExecution(serviceFunction.role);
        }
      }
      functions.set(spec.key, serviceFunction);

      const integration = new HttpLambdaIntegration(`${functionId}Integration`, serviceFunction.function);
      for (const operation of spec.operations) {
        const [route] = props.httpApi.addRoutes({
          path: operation.path,
          methods: [HttpMethod[operation.method]],
          integration,
          authorizer: operation.authenticated ? props.authorizer : new HttpNoneAuthorizer(),
          // API Gateway refuses (403) a token whose scope claim lacks the operation's scope.
          ...(operation.requiredScope !== undefined && { authorizationScopes: [operation.requiredScope] }),
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

  /** The state machines' ARNs for the function's environment; refuses a function with nothing to start. */
  private allowStartingWorkflows(
    spec: ApiFunctionSpec,
    stateMachines: ReadonlyMap<string, IStateMachine> | undefined,
  ): Record<string, string> {
    if (stateMachines === undefined || stateMachines.size === 0) {
      throw new Error(`${spec.key} starts workflows, but no workflow state machine was given`);
    }
    const arns = Object.fromEntries([...stateMachines].map(([name, machine]) => [name, machine.stateMachineArn]));
    return { MEMORY_HUB_STATE_MACHINES: Stack.of(this).toJsonString(arns) };
  }
}

const routeKeyOf = (operation: ApiOperation): string => `${operation.method} ${operation.path}`;

/** `lambdas/capabilities/notes/notes.lambda.ts` + `getNote` → `NotesGetNote`: stable while routes come and go. */
function functionIdOf(spec: ApiFunctionSpec): string {
  const module = basename(spec.entry).replace(/(\.lambda)?\.ts$/, '');
  return `${pascalCase(module)}${pascalCase(spec.handler)}`;
}
