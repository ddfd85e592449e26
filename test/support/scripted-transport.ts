import type { HttpHandlerOptions, HttpRequest, HttpResponse, RequestHandler } from '@smithy/types';
import { sdkBodyText } from '../../lambdas/adapters/crypto/local-kms.ts';
import type { Metrics } from '../../lambdas/kernel/observability/metrics.port.ts';

/** One request as it left an SDK client (KMS or DynamoDB): its operation, where it went, and its JSON input. */
export interface SentRequest {
  /** The operation of the `X-Amz-Target` header: `Decrypt`, `GetItem`, … */
  readonly operation: string;
  readonly hostname: string;
  readonly userAgent: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/**
 * What a test makes of one request: answer it as the service would (`undefined`), refuse it with an error of the
 * service's (its type, e.g. `ThrottlingException`), answer with the output changed, or hold it until released.
 */
export type Script = (
  request: SentRequest,
) =>
  | undefined
  | { readonly refuse: string }
  | { readonly change: (output: Record<string, unknown>) => Record<string, unknown> }
  | { readonly hold: Promise<void> };

type Transport = RequestHandler<HttpRequest, HttpResponse, HttpHandlerOptions>;

/**
 * A client's transport around a real one (the local KMS, the embedded engine's channel): it sees every request
 * exactly as the SDK serialised it, after every middleware of the client, and lets a test play the service's
 * faults — a throttled call, an answer without a field, a call that arrives late — without touching the code
 * above it. Everything else is answered by the real transport.
 */
export class ScriptedTransport implements Transport {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  readonly sent: SentRequest[] = [];
  readonly #inner: Transport;
  #script: Script = () => undefined;

  constructor(inner: Transport) {
    this.#inner = inner;
  }

  /** Plays `script` from now on (every request answered as the service would, by default). */
  play(script: Script): void {
    this.#script = script;
  }

  /** The operations sent so far, from `from` on. */
  operations(from = 0): string[] {
    return this.sent.slice(from).map((request) => request.operation);
  }

  async handle(request: HttpRequest, options?: HttpHandlerOptions): Promise<{ response: HttpResponse }> {
    const sent: SentRequest = {
      operation: String(request.headers['x-amz-target'] ?? '').replace(/^[^.]*\./, ''),
      hostname: request.hostname,
      userAgent: String(request.headers['user-agent'] ?? ''),
      input: jsonOf(request.body),
    };
    this.sent.push(sent);
    const scripted = this.#script(sent);
    if (scripted && 'refuse' in scripted) return refusal(scripted.refuse);
    if (scripted && 'hold' in scripted) await scripted.hold;
    const answered = await this.#inner.handle(request, options);
    if (!scripted || !('change' in scripted) || answered.response.statusCode !== 200) return answered;
    const output = scripted.change(jsonOf(answered.response.body));
    return { response: { ...answered.response, body: new Uint8Array(Buffer.from(JSON.stringify(output))) } };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {}
}

/** A gate a held request waits at: `arrived` once the request is there, `release` to let it through. */
export const gate = () => {
  let release = () => {};
  let arrive = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  return {
    arrived,
    release: () => release(),
    /** The hold for a script: marks the request arrived and waits for the release. */
    hold: () => {
      arrive();
      return released;
    },
  };
};

/** Metrics that keep what they were told, dimensions included: a deployment's dashboards see exactly this. */
export class RecordingMetrics implements Metrics {
  readonly counts: string[] = [];
  readonly storageRequests: { operation: string; capacityUnits: number }[] = [];
  readonly keyOperations: string[] = [];

  count(name: string): void {
    this.counts.push(name);
  }

  storageRequest(request: { operation: string; capacityUnits: number }): void {
    this.storageRequests.push({ ...request });
  }

  keyOperation(operation: string): void {
    this.keyOperations.push(operation);
  }
}

/** The JSON of a body as the SDK serialised it (bytes or text). */
const jsonOf = (body: unknown): Record<string, unknown> => {
  const text = sdkBodyText(body);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
};

/** A service error as AWS JSON answers it: the SDK turns the type into its exception class, retryable or not. */
const refusal = (type: string): { response: HttpResponse } => ({
  response: {
    statusCode: 400,
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type },
    body: new Uint8Array(Buffer.from(JSON.stringify({ __type: type, message: `Scripted ${type}` }))),
  } as HttpResponse,
});
