/**
 * Node's own streams in the shape of `readable-stream` (v3), which the Encryption SDK's `encrypt-node` and
 * `decrypt-node` (and `duplexify`, which `decrypt-node` uses) import. `lib/lambda-bundling.ts` puts this module in
 * place of that package in every Lambda bundle: `readable-stream` is a userland copy of the streams of Node 10
 * (≈ 40 KB of every bundle), and Node 24 has its own. `test/infra/lambda-bundling.test.ts` bundles the Encryption
 * SDK cipher with this swap and round-trips messages against the unbundled SDK. Local mode and the tests keep the
 * package.
 */
import { pipeline as nodePipeline } from 'node:stream';

export { Duplex, finished, PassThrough, Readable, Stream, Transform, Writable } from 'node:stream';

type Streams = Parameters<typeof nodePipeline>;

/**
 * `readable-stream`'s pipeline takes its callback as optional (the SDK's encrypt stream passes none); Node's
 * requires one. Without it, as there, an error destroys every stream of the pipeline and is reported by them.
 */
export const pipeline = (...streams: unknown[]): ReturnType<typeof nodePipeline> => {
  const last = streams.at(-1);
  const args = typeof last === 'function' ? streams : [...streams, () => undefined];
  return (nodePipeline as (...args: unknown[]) => ReturnType<typeof nodePipeline>)(...(args as Streams));
};
