import * as z from 'zod';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';

/** A project's learned retrieval biases: one record, `weights`, revised by each feedback step. */
export const RETRIEVAL_BIAS = defineRecordKind({ name: 'procedure-retrieval' });
export const RETRIEVAL_BIAS_ID = 'weights';
export const RETRIEVAL_BIAS_ID_PATTERN = /^weights$/;

export const RetrievalBias = z
  .object({
    logits: z.object({ bm25: z.number().finite(), vector: z.number().finite() }).strict(),
    /** Feedback steps taken. */
    steps: z.number().int().min(0),
  })
  .strict();
export type RetrievalBias = z.infer<typeof RetrievalBias>;
