/**
 * Turns text into vectors for the semantic strategy. The default needs no model (feature hashing); in AWS a
 * Bedrock embedding model can fill the same port. Vectors of different models are never compared: documents
 * keep the `model` that embedded them.
 */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /** One vector per text, in order. Some models embed a query unlike a document (Cohere); the default is `document`. */
  embed(texts: readonly string[], purpose?: EmbeddingPurpose): Promise<Float32Array[]>;
}

/** The width of the model-free default's vectors (feature hashing): what an index outside the table is sized for without a model. */
export const MODEL_FREE_EMBEDDING_DIMENSIONS = 256;

/** What a text is embedded for: stored and searched (`document`), or searched with (`query`). */
export type EmbeddingPurpose = 'document' | 'query';
