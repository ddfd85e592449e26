import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import * as z from 'zod';
import type { Embedder, EmbeddingPurpose } from '../../kernel/search/embedder.port.ts';
import { AWS_CLIENT_DEFAULTS } from '../aws-client-defaults.ts';
import { dependencyUnavailable } from '../aws-service-errors.ts';

/*
 * The `Embedder` port over an Amazon Bedrock embedding model, by InvokeModel (`POST /model/{modelId}/invoke`).
 * Two model families, with the request and response bodies of the Bedrock user guide:
 * - Amazon Titan Text Embeddings V2 (`amazon.titan-embed-text-v2:0`, "model-parameters-titan-embed-text"):
 *   one text a call, `{inputText, dimensions: 256 | 512 | 1024, normalize}` → `{embedding, inputTextTokenCount}`;
 * - Cohere Embed v3 (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`, "model-parameters-embed-v3"):
 *   up to 96 texts of up to 2,048 characters a call, `{texts, input_type, truncate}` → `{embeddings: [[…]]}`
 *   (`embeddings_floats`), 1,024 dimensions.
 * Retries (throttling, 5xx) are the SDK client's (its `maxAttempts`); what is still refused after them becomes
 * ServiceUnavailable when it is the service's load, and a BedrockEmbeddingError (a generic 500) otherwise.
 */

export type BedrockModelFamily = 'titan-v2' | 'cohere-v3';

export interface BedrockEmbedderOptions {
  readonly client: Pick<BedrockRuntimeClient, 'send'>;
  /** A Titan Text Embeddings V2 or Cohere Embed v3 model id (or an inference profile id ending in one). */
  readonly modelId: string;
  /** Titan V2: 256, 512 or 1024 (default 1024); Cohere v3: 1024. */
  readonly dimensions?: number;
  /** Calls in flight at once for one `embed` (default 4): Titan embeds one text a call. */
  readonly concurrency?: number;
}

interface ModelFamily {
  readonly dimensions: readonly number[];
  readonly defaultDimensions: number;
  /** Texts one call embeds. */
  readonly batch: number;
  /** Characters of one text the model accepts; longer texts are cut (the start of a memory says most). */
  readonly characters: number;
  body(texts: readonly string[], dimensions: number, purpose: EmbeddingPurpose): Record<string, unknown>;
  vectors(response: unknown): number[][];
}

const TitanResponse = z.object({ embedding: z.array(z.number()), inputTextTokenCount: z.number().optional() });
// Without `embedding_types` Cohere answers `embeddings_floats`; with them, `embeddings_by_type` ({float: […]}).
const CohereResponse = z.object({
  embeddings: z.union([z.array(z.array(z.number())), z.object({ float: z.array(z.array(z.number())) })]),
});

const FAMILIES: Readonly<Record<BedrockModelFamily, ModelFamily>> = {
  'titan-v2': {
    dimensions: [256, 512, 1024],
    defaultDimensions: 1024,
    batch: 1,
    characters: 50_000,
    body: ([text], dimensions) => ({ inputText: text, dimensions, normalize: true }),
    vectors: (response) => [TitanResponse.parse(response).embedding],
  },
  'cohere-v3': {
    dimensions: [1024],
    defaultDimensions: 1024,
    batch: 96,
    characters: 2048,
    body: (texts, _, purpose) => ({
      texts,
      input_type: purpose === 'query' ? 'search_query' : 'search_document',
      // A text past the model's 512 tokens loses its end rather than failing the whole batch.
      truncate: 'END',
    }),
    vectors: (response) => {
      const { embeddings } = CohereResponse.parse(response);
      return Array.isArray(embeddings) ? embeddings : embeddings.float;
    },
  },
};

/** The family of a model id, `undefined` for a model this adapter does not know the request body of. */
export const modelFamilyOf = (modelId: string): BedrockModelFamily | undefined => {
  // An inference profile id prefixes the model id with a geography (`eu.amazon.titan-…`).
  if (/(^|\.)amazon\.titan-embed-text-v2:\d+$/.test(modelId)) return 'titan-v2';
  if (/(^|\.)cohere\.embed-(english|multilingual)-v3(:\d+)?$/.test(modelId)) return 'cohere-v3';
  return undefined;
};

// Refusals that are the service's load or a passing fault (ThrottlingException and the 5xx ones the SDK already
// retried; ModelNotReady while an on-demand model is loaded; ServiceQuotaExceeded per Bedrock "resubmit later").
const UNAVAILABLE = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelNotReadyException',
  'ModelTimeoutException',
  'ServiceQuotaExceededException',
  'TimeoutError',
]);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/** The embedding model refused the request or answered what this adapter cannot read: a bug or a misconfiguration. */
export class BedrockEmbeddingError extends Error {
  readonly modelId: string;

  constructor(message: string, modelId: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BedrockEmbeddingError';
    this.modelId = modelId;
  }
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

export class BedrockEmbedder implements Embedder {
  /** The model id and the dimensions: vectors of one model at two sizes are never compared. */
  readonly model: string;
  readonly dimensions: number;
  readonly modelId: string;
  readonly #client: Pick<BedrockRuntimeClient, 'send'>;
  readonly #family: ModelFamily;
  readonly #concurrency: number;

  constructor(options: BedrockEmbedderOptions) {
    const familyName = modelFamilyOf(options.modelId);
    if (familyName === undefined)
      throw new RangeError(
        `Unknown embedding model ${options.modelId}: use amazon.titan-embed-text-v2:0 or cohere.embed-{english,multilingual}-v3`,
      );
    const family = FAMILIES[familyName];
    const dimensions = options.dimensions ?? family.defaultDimensions;
    if (!family.dimensions.includes(dimensions))
      throw new RangeError(
        `${options.modelId} embeds in ${family.dimensions.join(', ')} dimensions, not ${dimensions}`,
      );
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError('concurrency must be a positive integer');
    this.#client = options.client;
    this.#family = family;
    this.#concurrency = concurrency;
    this.modelId = options.modelId;
    this.dimensions = dimensions;
    this.model = `${options.modelId}/${dimensions}`;
  }

  /**
   * One vector per text, in order. A text without a letter or digit is the zero vector without a call (the
   * models refuse an empty input, and the default embedder gives such a text the zero vector too).
   */
  async embed(texts: readonly string[], purpose: EmbeddingPurpose = 'document'): Promise<Float32Array[]> {
    const vectors: Float32Array[] = texts.map(() => new Float32Array(this.dimensions));
    const pending = [...texts.keys()].filter((position) => /[\p{L}\p{N}]/u.test(texts[position] ?? ''));
    const batches: number[][] = [];
    for (let start = 0; start < pending.length; start += this.#family.batch)
      batches.push(pending.slice(start, start + this.#family.batch));

    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const batch = batches[next++] ?? [];
        const embedded = await this.#invoke(
          batch.map((position) => (texts[position] ?? '').slice(0, this.#family.characters)),
          purpose,
        );
        for (const [offset, position] of batch.entries()) {
          const vector = embedded[offset];
          if (vector) vectors[position] = vector;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, batches.length) }, worker));
    return vectors;
  }

  async #invoke(texts: readonly string[], purpose: EmbeddingPurpose): Promise<Float32Array[]> {
    let body: Uint8Array;
    try {
      const output = await this.#client.send(
        new InvokeModelCommand({
          modelId: this.modelId,
          contentType: 'application/json',
          accept: 'application/json',
          body: utf8.encode(JSON.stringify(this.#family.body(texts, this.dimensions, purpose))),
        }),
      );
      body = output.body;
    } catch (error) {
      throw this.#translated(error);
    }
    let vectors: number[][];
    try {
      vectors = this.#family.vectors(JSON.parse(utf8Decoder.decode(body)));
    } catch (error) {
      throw new BedrockEmbeddingError(`${this.modelId} answered a body that is not an embedding`, this.modelId, {
        cause: error,
      });
    }
    if (vectors.length !== texts.length)
      throw new BedrockEmbeddingError(
        `${this.modelId} answered ${vectors.length} embeddings for ${texts.length} texts`,
        this.modelId,
      );
    return vectors.map((vector) => {
      if (vector.length !== this.dimensions)
        throw new BedrockEmbeddingError(
          `${this.modelId} answered ${vector.length} dimensions, not ${this.dimensions}`,
          this.modelId,
        );
      return Float32Array.from(vector);
    });
  }

  #translated(error: unknown): Error {
    if (!(error instanceof Error))
      return new BedrockEmbeddingError(`${this.modelId} failed`, this.modelId, { cause: error });
    const code = (error as { code?: unknown }).code;
    if (UNAVAILABLE.has(error.name) || (typeof code === 'string' && NETWORK.has(code)))
      return dependencyUnavailable(error);
    // AccessDenied (no model access granted, or no IAM permission), ResourceNotFound, Validation, ModelError, …
    return new BedrockEmbeddingError(`${this.modelId} refused the request (${error.name})`, this.modelId, {
      cause: error,
    });
  }
}

/**
 * The embedder a function's environment names (`MEMORY_HUB_EMBEDDING_MODEL_ID`, `…_DIMENSIONS`), over a client
 * with the service's defaults; `undefined` when it names none, for the model-free default. Passed by the entries
 * of the functions that embed, so no other bundle carries the Bedrock client.
 */
export const bedrockEmbedderFor = (environment: {
  readonly MEMORY_HUB_EMBEDDING_MODEL_ID?: string | undefined;
  readonly MEMORY_HUB_EMBEDDING_DIMENSIONS?: number | undefined;
}): BedrockEmbedder | undefined => {
  const { MEMORY_HUB_EMBEDDING_MODEL_ID: modelId, MEMORY_HUB_EMBEDDING_DIMENSIONS: dimensions } = environment;
  if (modelId === undefined) return undefined;
  return new BedrockEmbedder({
    client: new BedrockRuntimeClient({ ...AWS_CLIENT_DEFAULTS }),
    modelId,
    ...(dimensions !== undefined && { dimensions }),
  });
};
