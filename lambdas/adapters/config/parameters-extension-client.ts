import { type IncomingMessage, request } from 'node:http';
import { ParameterReadError, type ParameterReader } from './parameter-reader.ts';

/** The extension's port unless `PARAMETERS_SECRETS_EXTENSION_HTTP_PORT` says otherwise. */
export const PARAMETERS_EXTENSION_DEFAULT_PORT = 2773;
/** The header the extension checks every request's token in (its guard against server-side request forgery). */
export const PARAMETERS_EXTENSION_TOKEN_HEADER = 'X-Aws-Parameters-Secrets-Token';
/** The most of an answer read: a parameter's value is at most 8 KB (Advanced tier), its answer a little more. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface ParametersExtensionClientOptions {
  /** The function's session token (`AWS_SESSION_TOKEN`), which the extension takes as the request's token. */
  readonly sessionToken: string | undefined;
  readonly port?: number;
  readonly host?: string;
}

/**
 * Reads parameters through the AWS Parameters and Secrets Lambda Extension, a layer that answers
 * `GET /systemsmanager/parameters/get?name=…` on localhost with Parameter Store's GetParameter output, calling
 * SSM with the function's own role. The function bundles no SSM client (≈ 80 KB of every bundle): it asks the
 * extension over loopback HTTP. The extension answers only during invocations, never during init; every answer
 * other than 200 is a failure (it gives no error code a caller could act on), as is a refused connection (the
 * layer missing). `node:http`, not `fetch`: the first `fetch` of a process loads undici (the first read of a fresh
 * process took ≈ 120 ms by `fetch`, ≈ 17 ms by `node:http`, on the benchmark machine), and the first request waits.
 * One connection per read, closed after it: reads are a TTL apart, and a kept-alive socket may not survive
 * the execution environment's freezes.
 * https://docs.aws.amazon.com/systems-manager/latest/userguide/ps-integration-lambda-extensions.html
 */
export class ParametersExtensionClient implements ParameterReader {
  readonly #sessionToken: string | undefined;
  readonly #port: number;
  readonly #host: string;

  constructor(options: ParametersExtensionClientOptions) {
    this.#sessionToken = options.sessionToken;
    this.#port = options.port ?? PARAMETERS_EXTENSION_DEFAULT_PORT;
    this.#host = options.host ?? 'localhost';
  }

  async readParameter(name: string, options: { readonly signal?: AbortSignal } = {}): Promise<string> {
    if (!this.#sessionToken) throw new ParameterReadError(name, 'no session token');
    let answer: { status: number; body: string };
    try {
      answer = await this.#get(`/systemsmanager/parameters/get?name=${encodeURIComponent(name)}`, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw new ParameterReadError(name, 'aborted', { cause: error });
      const code = (error as NodeJS.ErrnoException).code;
      throw new ParameterReadError(name, code ? `extension unreachable (${code})` : 'extension unreachable', {
        cause: error,
      });
    }
    if (answer.status !== 200) throw new ParameterReadError(name, `extension answered ${answer.status}`);
    const value = valueIn(answer.body);
    if (value === undefined) throw new ParameterReadError(name, 'no value in the answer');
    return value;
  }

  #get(path: string, signal: AbortSignal | undefined): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: this.#host,
          port: this.#port,
          path,
          method: 'GET',
          headers: { [PARAMETERS_EXTENSION_TOKEN_HEADER]: this.#sessionToken, connection: 'close' },
          agent: false,
          ...(signal && { signal }),
        },
        (incoming: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let bytes = 0;
          incoming.on('data', (chunk: Buffer) => {
            bytes += chunk.byteLength;
            if (bytes <= MAX_ANSWER_BYTES) return void chunks.push(chunk);
            // Not a GetParameter output: read as one without a value.
            resolve({ status: incoming.statusCode ?? 0, body: '' });
            incoming.destroy();
          });
          incoming.once('error', reject);
          incoming.once('end', () =>
            resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      outgoing.once('error', reject);
      outgoing.end();
    });
  }
}

/** `Parameter.Value` of a GetParameter output, if the answer is one. */
const valueIn = (body: string): string | undefined => {
  try {
    const value = (JSON.parse(body) as { Parameter?: { Value?: unknown } } | null)?.Parameter?.Value;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The client a Lambda function reads its parameters with, from its environment: the session token Lambda sets and
 * the port the extension's settings name (`lib/constructs/service-function.ts`).
 */
export const parametersExtensionClient = (
  variables: Readonly<Record<string, string | undefined>>,
): ParametersExtensionClient => {
  const port = variables.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT;
  if (port !== undefined && !/^\d{1,5}$/.test(port)) {
    throw new Error('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT must be a port number');
  }
  return new ParametersExtensionClient({
    sessionToken: variables.AWS_SESSION_TOKEN,
    ...(port !== undefined && { port: Number(port) }),
  });
};
