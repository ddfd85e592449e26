import type { RecordService } from '../../kernel/records/record-service.ts';
import type { SearchProjection } from '../../kernel/search/search-projection.ts';
import { toRecordResponse } from './http/procedures.operations.ts';
import { PROCEDURE, ProcedureContent } from './procedure.schema.ts';
import { indexedTextOf } from './procedure-ranking.ts';

/**
 * How search indexes a procedure (the reference's indexed fields, as procedure retrieval reads them; its status
 * as a facet) and shows one (as `GET …/procedures/{id}` does).
 */
export const procedureSearchProjection = (
  records: Pick<RecordService<ProcedureContent>, 'view'>,
): SearchProjection => ({
  kind: PROCEDURE,
  fields: (revision) => {
    const content = ProcedureContent.safeParse(revision.content);
    if (!content.success) return undefined;
    return {
      text: indexedTextOf(content.data),
      tags: content.data.metadata.tags,
      states: [content.data.status],
      edges: {
        ...(content.data.specializes && { lineage: [content.data.specializes.procedureId] }),
      },
    };
  },
  present: (revision) => toRecordResponse(records.view(revision)),
});
