/**
 * `debug` in the shape the OpenSearch client uses (`require('debug')('opensearch')(message, params)`), writing
 * nothing. `lib/lambda-bundling.ts` puts it in place of the package in every Lambda bundle: the client's debug
 * lines carry request parameters, which must never reach a log whatever `DEBUG` says, and the package weighs
 * ≈ 7 KB of the OpenSearch bundle. Local mode and the tests keep the package (silent unless `DEBUG` is set).
 */
type Debugger = ((...args: unknown[]) => void) & { enabled: boolean; namespace: string };

const debug = (namespace: string): Debugger => Object.assign(() => undefined, { enabled: false, namespace });

module.exports = debug;
