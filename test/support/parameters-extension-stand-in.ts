import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PARAMETERS_EXTENSION_TOKEN_HEADER } from '../../lambdas/adapters/config/parameters-extension-client.ts';

/*
 * A stand-in for the AWS Parameters and Secrets Lambda Extension, which runs only inside a Lambda execution
 * environment: an HTTP server on loopback serving what the extension serves the function and nothing more.
 * - `GET /systemsmanager/parameters/get?name=…` answers 200 with GetParameter's output (Parameter: ARN, DataType,
 *   LastModifiedDate, Name, Selector, SourceResult, Type, Value, Version; ResultMetadata), versioned as SSM
 *   versions a parameter;
 * - a request without the session token in X-Aws-Parameters-Secrets-Token is refused (401 here: the extension
 *   documents the check, not its status, and the adapter treats every answer but 200 alike);
 * - a parameter that does not exist, or one the role may not read, answers 400 with the extension's text body;
 * - `fail(status)` answers every read with that status, as when SSM throttles or fails behind the extension;
 * - `hold()` keeps every answer until `release()`; `hang()` never answers.
 * Every request is recorded.
 */

export interface RecordedExtensionRequest {
  readonly method: string;
  readonly path: string;
  /** The `name` query parameter, decoded. */
  readonly name: string | null;
  readonly token: string | undefined;
}

interface Parameter {
  readonly value: string;
  readonly version: number;
  readonly modifiedAt: Date;
}

export class ParametersExtensionStandIn {
  /** The session token the stand-in accepts, as the extension accepts the function's `AWS_SESSION_TOKEN`. */
  readonly sessionToken = `session-${randomUUID()}`;
  readonly requests: RecordedExtensionRequest[] = [];
  readonly #parameters = new Map<string, Parameter>();
  readonly #server = createServer((request, response) =>
    this.#answer(request.method ?? '', request.url ?? '', request.headers, response),
  );
  #failure: number | undefined;
  #held: (() => void)[] | undefined;
  #hanging = false;

  private constructor() {}

  /** A stand-in listening on a free loopback port (`port`). */
  static async start(): Promise<ParametersExtensionStandIn> {
    const standIn = new ParametersExtensionStandIn();
    await new Promise<void>((resolve, reject) => {
      standIn.#server.once('error', reject);
      standIn.#server.listen(0, '127.0.0.1', () => resolve());
    });
    return standIn;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Puts a new value in the parameter, as `ssm put-parameter --overwrite` would: its version goes up by one. */
  publish(name: string, value: string): void {
    const version = (this.#parameters.get(name)?.version ?? 0) + 1;
    this.#parameters.set(name, { value, version, modifiedAt: new Date() });
  }

  /** Answers every read with `status` (400, 500, …) until called with undefined. */
  fail(status: number | undefined): void {
    this.#failure = status;
  }

  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const answer of held) answer();
  }

  /** From now on, requests are never answered (until `close`). */
  hang(hanging = true): void {
    this.#hanging = hanging;
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #answer(
    method: string,
    url: string,
    headers: Record<string, string | string[] | undefined>,
    response: ServerResponse,
  ): void {
    const { pathname, searchParams } = new URL(url, 'http://localhost');
    const token = headers[PARAMETERS_EXTENSION_TOKEN_HEADER.toLowerCase()];
    const name = searchParams.get('name');
    this.requests.push({ method, path: url, name, token: typeof token === 'string' ? token : undefined });
    if (this.#hanging) return;
    const answer = () => {
      if (method !== 'GET' || pathname !== '/systemsmanager/parameters/get')
        return text(response, 400, 'unknown route');
      if (token !== this.sessionToken) return text(response, 401, 'bad session token or header key');
      if (this.#failure !== undefined) return text(response, this.#failure, UNEXPECTED_ERROR);
      const parameter = name === null ? undefined : this.#parameters.get(name);
      if (name === null || !parameter) return text(response, 400, UNEXPECTED_ERROR);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          Parameter: {
            ARN: `arn:aws:ssm:us-east-1:111122223333:parameter${name}`,
            DataType: 'text',
            LastModifiedDate: parameter.modifiedAt.toISOString(),
            Name: name,
            Selector: null,
            SourceResult: null,
            Type: 'String',
            Value: parameter.value,
            Version: parameter.version,
          },
          ResultMetadata: {},
        }),
      );
    };
    if (this.#held) this.#held.push(answer);
    else answer();
  }
}

const UNEXPECTED_ERROR = 'an unexpected error occurred while executing request';

const text = (response: ServerResponse, status: number, body: string): void => {
  response.writeHead(status, { 'content-type': 'text/plain' });
  response.end(body);
};
