/**
 * AWS Lambda entry points of retrieval: search, context assembly, and the search index consumer (an
 * EventBridge rule's target). Built from the retrieval module and the modules whose kinds it indexes, once
 * per execution environment at init, with the embedder and the index the bundle was built for (bundled-backends.ts).
 */
import { awsApplication } from '../../composition/aws-application.ts';
import { bundledBackends } from '../../composition/bundled-backends.ts';
import { analyze } from './ranking/text-analysis.ts';
import { retrievalModule } from './retrieval.module.ts';
import { SEARCH_INDEX_CONSUMER } from './search-index.consumer.ts';
import { SEARCHED_MODULES } from './searched-modules.ts';

const retrieval = await awsApplication(
  process.env,
  [retrievalModule, ...SEARCHED_MODULES],
  await bundledBackends({ analyze }),
);

export const search = retrieval.handler('search');
export const assembleContext = retrieval.handler('assembleContext');
export const searchIndexConsumer = retrieval.consumerHandler(SEARCH_INDEX_CONSUMER);
