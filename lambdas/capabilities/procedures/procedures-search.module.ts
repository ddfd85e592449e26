import { defineModule } from '../../composition/capability-module.ts';
import { PROCEDURE, ProcedureContent } from './procedure.schema.ts';
import { procedureSearchProjection } from './procedure.search.ts';
import { proceduresSettings } from './procedures.config.ts';

/** Procedures as search sees them, and nothing else: what retrieval's functions build to index and show them. */
export const proceduresSearchModule = defineModule({
  name: 'procedures-search',
  recordKinds: [PROCEDURE],
  config: [proceduresSettings],
  build: ({ kernel }) => ({
    services: {},
    searchable: [
      procedureSearchProjection(
        kernel.recordService({
          kind: PROCEDURE,
          content: ProcedureContent,
          horizonDays: () => proceduresSettings.of(kernel.config.current()).procedureHorizonDays,
        }),
      ),
    ],
  }),
});
