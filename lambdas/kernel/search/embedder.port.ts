/**
 * Turns text into vectors for the semantic strategy. The default needs no model (feature hashing); in AWS a
 * Bedrock embedding model can fill the same port. Vectors of different models are never compared: documents
 * keep the `model` that embedded them.
 */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
