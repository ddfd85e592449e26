/**
 * Where the server's CPU goes: a V8 CPU profile of the server process (`--cpu-prof`), cut to the measured
 * window and attributed to components. Each sample's self time goes to the nearest frame on its stack that
 * is not Node's own code, so time spent inside Node (streams, crypto, buffers) is charged to the package
 * that called it; samples with only Node frames on the stack are the runtime's own work (HTTP parsing,
 * sockets, timers).
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export const COMPONENTS = {
  encryption: 'AWS Encryption SDK (`@aws-crypto/*`, its streams and ASN.1)',
  engine: 'Embedded DynamoDB engine (dynalite in memory, its worker and journal)',
  sdk: 'AWS SDK DynamoDB client (`@aws-sdk/*`, `@smithy/*`)',
  gateway: 'Local gateway and JWT verification (`lambdas/local`, aws-jwt-verify)',
  service: 'Handlers, validation and core (`lambdas/*`, zod, middy)',
  runtime: 'Node runtime only (HTTP parsing, sockets, timers)',
  gc: 'Garbage collection',
  other: 'Other',
} as const;
export type Component = keyof typeof COMPONENTS;

const ENCRYPTION =
  /^(@aws-crypto\/(?!crc32|sha256|util|supports-web-crypto)|readable-stream|duplexify|asn1\.js|bn\.js|end-of-stream|stream-shift|inherits|safe-buffer|string_decoder|util-deprecate)/;
const ENGINE =
  /^(dynalite|level|abstract-level|classic-level|memory-level|browser-level|level-|async$|big\.js|buffer-crc32|lazy|lock|once|wrappy|buffer$|module-error|functional-red-black-tree|maybe-combine-errors|napi-macros|node-gyp-build)/;
const SDK =
  /^(@aws-sdk\/|@smithy\/|@aws-crypto\/(crc32|sha256|util|supports-web-crypto)|fast-xml-parser|strnum|tslib|uuid|bowser)/;
const GATEWAY = /^aws-jwt-verify/;
const SERVICE = /^(zod|@middy\/|ulid|blakejs)/;

const componentOfUrl = (url: string): Component => {
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (packageName) {
    if (ENCRYPTION.test(packageName)) return 'encryption';
    if (ENGINE.test(packageName)) return 'engine';
    if (SDK.test(packageName)) return 'sdk';
    if (GATEWAY.test(packageName)) return 'gateway';
    if (SERVICE.test(packageName)) return 'service';
    return 'other';
  }
  if (/\/lambdas\/local\/(embedded-dynamodb\.worker|engine-journal|engine-change-gate)\.ts/.test(url)) return 'engine';
  if (url.includes('/lambdas/local/') || url.includes('/bin/')) return 'gateway';
  if (url.includes('/lambdas/')) return 'service';
  return 'other';
};

export interface CpuBreakdown {
  /** Busy (non-idle) CPU time of the main thread in the window, ms. */
  busyMilliseconds: number;
  /** Window length, ms. */
  windowMilliseconds: number;
  /** Whether the window could be matched to the profile's clock (else the whole profile is used). */
  windowed: boolean;
  byComponent: Record<Component, number>;
  /** Busiest package-level owners, for a closer look. */
  topOwners: { owner: string; milliseconds: number }[];
}

/**
 * Reads a profile and attributes the samples between `fromMicros` and `toMicros` (CLOCK_MONOTONIC
 * microseconds, the clock V8 stamps profiles with and `process.hrtime` reads).
 */
export const analyseCpuProfile = async (path: string, fromMicros: number, toMicros: number): Promise<CpuBreakdown> => {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const windowed = fromMicros >= profile.startTime && toMicros <= profile.endTime;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

  const ownerCache = new Map<number, { component: Component; owner: string } | 'idle'>();
  const ownerOf = (id: number): { component: Component; owner: string } | 'idle' => {
    const cached = ownerCache.get(id);
    if (cached) return cached;
    const leaf = nodes.get(id);
    let result: { component: Component; owner: string } | 'idle';
    const name = leaf?.callFrame.functionName;
    if (name === '(idle)') result = 'idle';
    else if (name === '(garbage collector)') result = { component: 'gc', owner: '(garbage collector)' };
    else {
      result = { component: 'runtime', owner: `node:${name || 'anonymous'}` };
      for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
        const url = nodes.get(current)?.callFrame.url ?? '';
        if (url && !url.startsWith('node:')) {
          const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
          result = { component: componentOfUrl(url), owner: packageName ?? url.replace(/^.*\/(lambdas|bin)\//, '$1/') };
          break;
        }
      }
      if (result.component === 'runtime' && (name === '(program)' || name === '(root)'))
        result = { component: 'runtime', owner: name };
    }
    ownerCache.set(id, result);
    return result;
  };

  const byComponent = Object.fromEntries(Object.keys(COMPONENTS).map((key) => [key, 0])) as Record<Component, number>;
  const byOwner = new Map<string, number>();
  let busy = 0;
  let time = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    time += profile.timeDeltas[index] ?? 0;
    const delta = profile.timeDeltas[index + 1] ?? 0;
    if (windowed && (time < fromMicros || time > toMicros)) continue;
    const owner = ownerOf(profile.samples[index] ?? -1);
    if (owner === 'idle') continue;
    const milliseconds = delta / 1000;
    busy += milliseconds;
    byComponent[owner.component] += milliseconds;
    byOwner.set(owner.owner, (byOwner.get(owner.owner) ?? 0) + milliseconds);
  }
  return {
    busyMilliseconds: busy,
    windowMilliseconds: windowed ? (toMicros - fromMicros) / 1000 : (profile.endTime - profile.startTime) / 1000,
    windowed,
    byComponent,
    topOwners: [...byOwner]
      .map(([owner, milliseconds]) => ({ owner, milliseconds }))
      .sort((a, b) => b.milliseconds - a.milliseconds)
      .slice(0, 10),
  };
};

/** CLOCK_MONOTONIC now, in microseconds — comparable with a V8 profile's timestamps. */
export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);
