import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { HttpHandlerOptions, HttpRequest, HttpResponse, RequestHandler } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import {
  BedrockEmbedder,
  BedrockEmbeddingError,
  bedrockEmbedderFor,
  modelFamilyOf,
} from '../../../lambdas/adapters/bedrock/bedrock-embedder.ts';
import { sdkBodyText } from '../../../lambdas/adapters/crypto/local-kms.ts';
import { ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';

const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-multilingual-v3';

/** One InvokeModel request as it left the client: after serialisation, signing and every middleware. */
interface SentInvocation {
  readonly method: string;
  readonly hostname: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

type Answer = { readonly status: number; readonly body: unknown; readonly errorType?: string };

/**
 * Bedrock Runtime as the client's transport: answers InvokeModel for Titan V2 (`{embedding,
 * inputTextTokenCount}`) and Cohere v3 (`embeddings_floats`) with a vector made from the text, or as the
 * test scripts it (a refusal of the service's, a body changed). Keeps every request as the SDK sent it.
 */
class BedrockRuntimeStandIn implements RequestHandler<HttpRequest, HttpResponse, HttpHandlerOptions> {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  readonly sent: SentInvocation[] = [];
  script: (request: SentInvocation, attempt: number) => Answer | undefined = () => undefined;
  inFlight = 0;
  mostInFlight = 0;

  async handle(request: HttpRequest): Promise<{ response: HttpResponse }> {
    const text = sdkBodyText(request.body);
    const sent: SentInvocation = {
      method: request.method,
      hostname: request.hostname,
      path: request.path,
      headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value])),
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
    this.sent.push(sent);
    this.inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    this.inFlight -= 1;
    const answer = this.script(sent, this.sent.length) ?? this.#answer(sent);
    return {
      response: {
        statusCode: answer.status,
        reason: undefined,
        headers: {
          'content-type': 'application/json',
          'x-amzn-requestid': `request-${this.sent.length}`,
          ...(answer.errorType && { 'x-amzn-errortype': answer.errorType }),
        },
        body: new Uint8Array(Buffer.from(JSON.stringify(answer.body))),
      } as HttpResponse,
    };
  }

  #answer(sent: SentInvocation): Answer {
    const modelId = decodeURIComponent(sent.path.replace(/^\/model\/([^/]+)\/invoke$/, '$1'));
    if (modelId.includes('titan')) {
      const text = String(sent.body.inputText);
      return {
        status: 200,
        body: { embedding: vectorOf(text, Number(sent.body.dimensions)), inputTextTokenCount: text.split(' ').length },
      };
    }
    const texts = sent.body.texts as string[];
    return {
      status: 200,
      body: {
        id: 'embed-1',
        response_type: 'embeddings_floats',
        texts,
        embeddings: texts.map((text) => vectorOf(text, 1024)),
      },
    };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {}
}

/** A vector that says which text it was made from: its first value is the text's length. */
const vectorOf = (text: string, dimensions: number): number[] =>
  Array.from({ length: dimensions }, (_, index) => (index === 0 ? text.length : 1 / (index + 1)));

/** A service error as Bedrock's REST-JSON protocol answers it: the status and the error type's header. */
const refusal = (errorType: string, status: number): Answer => ({
  status,
  errorType,
  body: { message: `Scripted ${errorType}` },
});

const embedderOver = (options: {
  modelId?: string;
  dimensions?: number;
  maxAttempts?: number;
  concurrency?: number;
}) => {
  const transport = new BedrockRuntimeStandIn();
  const client = new BedrockRuntimeClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestHandler: transport,
    maxAttempts: options.maxAttempts ?? 1,
  });
  const embedder = new BedrockEmbedder({
    client,
    modelId: options.modelId ?? TITAN,
    ...(options.dimensions !== undefined && { dimensions: options.dimensions }),
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
  });
  return { embedder, transport };
};

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error as Error,
  );

describe('Class: BedrockEmbedder', () => {
  describe('Method: constructor', () => {
    it('names the model with its dimensions, so vectors of one model at two sizes are never compared', () => {
      expect(embedderOver({ dimensions: 256 }).embedder.model).toBe('amazon.titan-embed-text-v2:0/256');
      expect(embedderOver({}).embedder).toMatchObject({ model: `${TITAN}/1024`, dimensions: 1024 });
      expect(embedderOver({ modelId: COHERE }).embedder).toMatchObject({ model: `${COHERE}/1024`, dimensions: 1024 });
    });

    it.each([
      [TITAN, 384],
      [TITAN, 0],
      [COHERE, 256],
    ])('refuses %s at %d dimensions, naming the sizes it has', (modelId, dimensions) => {
      expect(() => embedderOver({ modelId, dimensions })).toThrow(RangeError);
      expect(() => embedderOver({ modelId, dimensions })).toThrow(/embeds in/);
    });

    it('refuses a model whose request body it does not know', () => {
      expect(() => embedderOver({ modelId: 'amazon.titan-embed-text-v1' })).toThrow(/Unknown embedding model/);
      expect(() => embedderOver({ modelId: 'cohere.embed-v4:0' })).toThrow(/Unknown embedding model/);
    });

    it('knows a model through a cross-region inference profile', () => {
      expect(modelFamilyOf('eu.amazon.titan-embed-text-v2:0')).toBe('titan-v2');
      expect(modelFamilyOf('us.cohere.embed-english-v3')).toBe('cohere-v3');
      expect(modelFamilyOf('amazon.titan-embed-image-v1')).toBeUndefined();
    });
  });

  describe('Method: embed (Titan Text Embeddings V2)', () => {
    it('sends one InvokeModel per text: POST /model/{modelId}/invoke, JSON in and out, signed, body {inputText, dimensions, normalize}', async () => {
      // Prepare
      const { embedder, transport } = embedderOver({ dimensions: 256 });

      // Act
      const [vector] = await embedder.embed(['pangolins eat ants']);

      // Assess
      expect(transport.sent).toHaveLength(1);
      const [sent] = transport.sent;
      expect(sent).toMatchObject({
        method: 'POST',
        hostname: 'bedrock-runtime.eu-west-1.amazonaws.com',
        path: '/model/amazon.titan-embed-text-v2%3A0/invoke',
        body: { inputText: 'pangolins eat ants', dimensions: 256, normalize: true },
      });
      expect(Object.keys(sent?.body ?? {}).sort()).toEqual(['dimensions', 'inputText', 'normalize']);
      expect(sent?.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json' });
      expect(sent?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock\//,
      );
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(256);
      expect(vector?.[0]).toBe('pangolins eat ants'.length);
    });

    it('keeps the order of the texts whatever order the calls end in, with at most `concurrency` calls at once', async () => {
      // Prepare
      const { embedder, transport } = embedderOver({ dimensions: 512, concurrency: 3 });
      const texts = Array.from({ length: 10 }, (_, index) => 'x'.repeat(index + 1));

      // Act
      const vectors = await embedder.embed(texts);

      // Assess
      expect(vectors.map((vector) => vector[0])).toEqual(texts.map((text) => text.length));
      expect(transport.sent).toHaveLength(10);
      expect(transport.mostInFlight).toBe(3);
    });

    it('gives a text without a letter or digit the zero vector without a call (the model refuses an empty input)', async () => {
      const { embedder, transport } = embedderOver({ dimensions: 256 });

      const vectors = await embedder.embed(['', ' !? ', 'words']);

      expect(transport.sent.map((sent) => sent.body.inputText)).toEqual(['words']);
      expect([...(vectors[0] ?? [])].every((value) => value === 0)).toBe(true);
      expect([...(vectors[1] ?? [])].every((value) => value === 0)).toBe(true);
      expect(vectors[2]?.[0]).toBe(5);
    });

    it('makes no call for no texts', async () => {
      const { embedder, transport } = embedderOver({});

      await expect(embedder.embed([])).resolves.toEqual([]);
      expect(transport.sent).toHaveLength(0);
    });

    it('refuses an answer of other dimensions than asked for, naming both', async () => {
      const { embedder, transport } = embedderOver({ dimensions: 256 });
      transport.script = () => ({ status: 200, body: { embedding: [0.5, 0.5], inputTextTokenCount: 1 } });

      const failure = await failureOf(embedder.embed(['text']));

      expect(failure).toBeInstanceOf(BedrockEmbeddingError);
      expect(failure?.message).toMatch(/answered 2 dimensions, not 256/);
    });

    it('refuses an answer without an embedding, keeping why as the cause', async () => {
      const { embedder, transport } = embedderOver({ dimensions: 256 });
      transport.script = () => ({ status: 200, body: { inputTextTokenCount: 1 } });

      const failure = await failureOf(embedder.embed(['text']));

      expect(failure).toBeInstanceOf(BedrockEmbeddingError);
      expect(failure?.cause).toBeInstanceOf(Error);
    });
  });

  describe('Method: embed (Cohere Embed v3)', () => {
    it('sends up to 96 texts a call with input_type search_document, and search_query for a query', async () => {
      // Prepare
      const { embedder, transport } = embedderOver({ modelId: COHERE });
      const texts = Array.from({ length: 100 }, (_, index) => `text ${index}`);

      // Act
      const documents = await embedder.embed(texts);
      const [query] = await embedder.embed(['where are the ants'], 'query');

      // Assess
      expect(transport.sent.map((sent) => (sent.body.texts as string[]).length)).toEqual([96, 4, 1]);
      expect(transport.sent[0]).toMatchObject({
        method: 'POST',
        path: '/model/cohere.embed-multilingual-v3/invoke',
        body: { input_type: 'search_document', truncate: 'END' },
      });
      expect(transport.sent[2]?.body).toEqual({
        texts: ['where are the ants'],
        input_type: 'search_query',
        truncate: 'END',
      });
      expect(documents.map((vector) => vector[0])).toEqual(texts.map((text) => text.length));
      expect(query).toHaveLength(1024);
    });

    it('cuts a text to the 2,048 characters a call takes', async () => {
      const { embedder, transport } = embedderOver({ modelId: COHERE });

      await embedder.embed(['a'.repeat(5000)]);

      expect(transport.sent[0]?.body.texts).toEqual(['a'.repeat(2048)]);
    });

    it('reads the embeddings_by_type answer too', async () => {
      const { embedder, transport } = embedderOver({ modelId: COHERE });
      transport.script = () => ({
        status: 200,
        body: { response_type: 'embeddings_by_type', embeddings: { float: [vectorOf('abc', 1024)] } },
      });

      const [vector] = await embedder.embed(['abc']);

      expect(vector?.[0]).toBe(3);
    });

    it('refuses an answer with fewer embeddings than texts', async () => {
      const { embedder, transport } = embedderOver({ modelId: COHERE });
      transport.script = () => ({ status: 200, body: { embeddings: [vectorOf('a', 1024)] } });

      const failure = await failureOf(embedder.embed(['a', 'b']));

      expect(failure).toBeInstanceOf(BedrockEmbeddingError);
      expect(failure?.message).toMatch(/1 embeddings for 2 texts/);
    });
  });

  describe('Method: embed (errors)', () => {
    it.each([
      ['ThrottlingException', 429],
      ['ServiceUnavailableException', 503],
      ['InternalServerException', 500],
      ['ModelNotReadyException', 429],
      ['ModelTimeoutException', 408],
      ['ServiceQuotaExceededException', 400],
    ])(
      'turns %s (after the SDK’s own retries) into ServiceUnavailable, the SDK’s error kept as the cause',
      async (type, status) => {
        const { embedder, transport } = embedderOver({ dimensions: 256 });
        transport.script = () => refusal(type, status);

        const failure = await failureOf(embedder.embed(['text']));

        expect(failure).toBeInstanceOf(ServiceUnavailableError);
        expect(failure?.cause).toMatchObject({ name: type });
      },
    );

    it.each([
      ['AccessDeniedException', 403],
      ['ResourceNotFoundException', 404],
      ['ValidationException', 400],
      ['ModelErrorException', 424],
    ])(
      'turns %s into a BedrockEmbeddingError naming the model and the refusal (a generic 500)',
      async (type, status) => {
        const { embedder, transport } = embedderOver({ dimensions: 256 });
        transport.script = () => refusal(type, status);

        const failure = await failureOf(embedder.embed(['text']));

        expect(failure).toBeInstanceOf(BedrockEmbeddingError);
        expect(failure?.message).toBe(`${TITAN} refused the request (${type})`);
        expect(failure?.cause).toMatchObject({ name: type });
      },
    );

    it('leaves retries to the SDK client: a throttled call is tried again and its answer used', async () => {
      // Prepare: the first attempt throttled, the second answered
      const { embedder, transport } = embedderOver({ dimensions: 256, maxAttempts: 2 });
      transport.script = (_, attempt) => (attempt === 1 ? refusal('ThrottlingException', 429) : undefined);

      // Act
      const [vector] = await embedder.embed(['text']);

      // Assess
      expect(transport.sent).toHaveLength(2);
      expect(vector?.[0]).toBe(4);
    });
  });
});

describe('Function: bedrockEmbedderFor', () => {
  it('is the model-free default (none) when the environment names no model', () => {
    expect(bedrockEmbedderFor({})).toBeUndefined();
  });

  it('builds the embedder the environment names', () => {
    expect(
      bedrockEmbedderFor({ MEMORY_HUB_EMBEDDING_MODEL_ID: TITAN, MEMORY_HUB_EMBEDDING_DIMENSIONS: 512 }),
    ).toMatchObject({ model: `${TITAN}/512` });
    expect(bedrockEmbedderFor({ MEMORY_HUB_EMBEDDING_MODEL_ID: COHERE })).toMatchObject({ model: `${COHERE}/1024` });
  });
});
