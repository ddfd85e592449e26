import * as z from 'zod';
import { defineConfigSection } from '../../kernel/config/config-section.ts';

const share = () => z.number().min(0).max(1);

/** Reference 001's defaults (§B.1–B.5), every one an operator's to tune. */
export const proceduresSettings = defineConfigSection({
  name: 'procedures',
  fields: {
    /** K of eq. 3: procedures a retrieval returns unless the request asks for fewer or more. */
    retrievalK: z.number().int().min(1).max(20).default(5),
    /** Table 3's routing cues and the learned biases; off fixes w_b = w_v = 0.5. */
    adaptiveRetrieval: z.boolean().default(true),
    /** η of the feedback step. */
    feedbackLearningRate: z.number().gt(0).max(5).default(0.2),
    /** Eq. 10's eligibility cut-off. */
    minEvidenceConfidence: share().default(0.7),
    /** β of eq. 5. */
    goalBeta: share().default(0.55),
    /** τ_g and τ_p: realign above these. */
    goalDivergenceThreshold: share().default(0.35),
    planDivergenceThreshold: share().default(0.4),
    /** λ of eq. 12–13. */
    costWeight: z.number().min(0).max(100).default(1),
    /** Promotion gates of eq. 9. */
    maxSafetyRisk: share().default(0.5),
    minCausalConfidence: share().default(0.65),
    minReproductions: z.number().int().min(1).max(100).default(1),
    /** How long procedures, candidates and tasks live after their last revision. */
    procedureHorizonDays: z.number().int().min(1).max(3650).default(3650),
    taskHorizonDays: z.number().int().min(1).max(3650).default(365),
  },
});
export type ProceduresSettings = ReturnType<typeof proceduresSettings.of>;
