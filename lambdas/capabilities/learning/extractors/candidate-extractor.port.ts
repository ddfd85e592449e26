import type { CandidateRule } from '../belief.schema.ts';
import type { SessionEventInput } from '../session-event.schema.ts';

/**
 * DRAFT: turns one session event into the candidate rules it suggests; the merge folds them into beliefs.
 *
 * - `synchronous` extractors are deterministic and cheap. They run inside the append request, so learned
 *   memory is readable right after the write that taught it. They pattern-match and never act on the text
 *   they read: stored text is data, not instructions.
 * - `asynchronous` extractors are the door for model-based strategies (reading messages, say). They are
 *   driven by the records of session events after the append has answered, never inside it. None is
 *   required; the deterministic ones stand on their own.
 *
 * An extractor answers only for the event types it knows and returns nothing for the others. Its candidates
 * are checked against `CandidateRule` before they are merged, whoever wrote the extractor.
 */
export type CandidateExtractor =
  | {
      readonly name: string;
      readonly mode: 'synchronous';
      extract(event: SessionEventInput): readonly CandidateRule[];
    }
  | {
      readonly name: string;
      readonly mode: 'asynchronous';
      /** May call a model; runs off the request path, so it may take its time (and fail and be retried). */
      extract(event: SessionEventInput): Promise<readonly CandidateRule[]>;
    };

/** A deterministic extractor: runs inside the append request. */
export type SynchronousExtractor = Extract<CandidateExtractor, { mode: 'synchronous' }>;
