import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JwtRsaVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { ALL_MEMORY_HUB_SCOPES, isMemoryHubScope } from '../kernel/identity/oauth-scopes.ts';
import { assertTokenInForce, MAX_TOKEN_LIFETIME_SECONDS } from '../kernel/identity/token-rules.ts';
import { isMemoryHubGroupName, SAFE_TOKEN } from '../kernel/identity/verified-claims.ts';
import { type Clock, systemClock } from '../kernel/time/clock.ts';

/** Stands in for Cognito locally: same claims, RS256, keys kept in the data folder. */
export const LOCAL_ISSUER = 'urn:memory-hub:local-issuer';
export const DEFAULT_LOCAL_CLIENT = 'memory-hub-local';

interface IssuerFiles {
  folder: string;
  privateKey: string;
  jwks: string;
  clients: string;
}

const filesOf = (dataDir: string): IssuerFiles => {
  const folder = join(dataDir, 'issuer');
  return {
    folder,
    privateKey: join(folder, 'signing-key.pem'),
    jwks: join(folder, 'jwks.json'),
    clients: join(folder, 'clients.json'),
  };
};

export interface LocalIssuer {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  readonly jwks: Jwks;
}

/** Creates the issuer's signing key on first use (mode 0600) and loads it. */
export const ensureLocalIssuer = async (dataDir: string): Promise<LocalIssuer> => {
  const files = filesOf(dataDir);
  await mkdir(files.folder, { recursive: true, mode: 0o700 });
  const exists = await stat(files.privateKey).then(
    () => true,
    () => false,
  );
  // Generating a key pair takes tens of milliseconds: only when there is none yet (the `wx` write still
  // settles a race between two first starts).
  if (!exists) await createSigningKey(files);
  const privateKey = createPrivateKey(await readFile(files.privateKey));
  const jwks = await readJwks(files, privateKey);
  const keyId = String(jwks.keys[0]?.kid);
  return { keyId, privateKey, jwks };
};

const createSigningKey = async (files: IssuerFiles): Promise<void> => {
  try {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyId = randomUUID();
    await writeFile(files.privateKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { flag: 'wx', mode: 0o600 });
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: keyId, alg: 'RS256', use: 'sig' };
    await writeFile(files.jwks, JSON.stringify({ keys: [jwk] }, null, 2), { mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
};

/** Reads the JWKS, waiting briefly if another process is still writing it after creating the key. */
const readJwks = async (files: IssuerFiles, privateKey: KeyObject): Promise<LocalIssuer['jwks']> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const jwks = JSON.parse(await readFile(files.jwks, 'utf8')) as LocalIssuer['jwks'];
      const expected = createPublicKey(privateKey).export({ format: 'jwk' });
      if (jwks.keys[0]?.n === expected.n) return jwks;
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`The local issuer's JWKS at ${files.jwks} does not match its signing key`);
};

export interface TokenRequest {
  tenant: string;
  sub: string;
  groups?: readonly string[];
  client?: string;
  ttlSeconds?: number;
  /**
   * The OAuth scopes the token grants. Every scope by default: the local issuer stands in for every app
   * client, and a developer's token is the operator's (read, write, admin) unless narrowed, e.g. to
   * `memory-hub/memory.read` for a read-only agent. Roles (groups) are checked independently of scopes.
   */
  scopes?: readonly string[];
}

/**
 * Mints an access token with the claims Cognito puts in one (plus `custom:tenant` and the app client's
 * scopes, which the deployed pre-token-generation trigger adds), and registers the client as one the
 * local server accepts.
 */
export const mintLocalToken = async (dataDir: string, request: TokenRequest): Promise<string> => {
  const client = request.client ?? DEFAULT_LOCAL_CLIENT;
  const ttl = request.ttlSeconds ?? 3600;
  const groups = request.groups ?? [];
  const scopes = request.scopes ?? ALL_MEMORY_HUB_SCOPES;
  if (!SAFE_TOKEN.test(request.tenant)) throw new Error('--tenant must be 1-64 characters of A-Z, a-z, 0-9, _ or -');
  if (!SAFE_TOKEN.test(request.sub)) throw new Error('--sub must be 1-64 characters of A-Z, a-z, 0-9, _ or -');
  if (!SAFE_TOKEN.test(client)) throw new Error('--client must be 1-64 characters of A-Z, a-z, 0-9, _ or -');
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TOKEN_LIFETIME_SECONDS)
    throw new Error(`--ttl must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME_SECONDS}`);
  if (!groups.every(isMemoryHubGroupName))
    throw new Error('--groups takes project:{id}:{role} or org:admin, comma-separated');
  if (scopes.length === 0 || !scopes.every(isMemoryHubScope))
    throw new Error(`--scopes takes one or more of ${ALL_MEMORY_HUB_SCOPES.join(', ')}, comma-separated`);

  const issuer = await ensureLocalIssuer(dataDir);
  await registerClient(dataDir, client);
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'RS256', kid: issuer.keyId, typ: 'JWT' };
  const payload = {
    sub: request.sub,
    iss: LOCAL_ISSUER,
    client_id: client,
    token_use: 'access',
    scope: [...new Set(scopes)].join(' '),
    auth_time: now,
    iat: now,
    exp: now + ttl,
    jti: randomUUID(),
    username: request.sub,
    'custom:tenant': request.tenant,
    ...(groups.length > 0 && { 'cognito:groups': [...groups] }),
  };
  const signingInput = `${base64url(header)}.${base64url(payload)}`;
  const signature = sign('RSA-SHA256', Buffer.from(signingInput), issuer.privateKey).toString('base64url');
  return `${signingInput}.${signature}`;
};

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

const registerClient = async (dataDir: string, client: string): Promise<void> => {
  const files = filesOf(dataDir);
  const clients = await readClients(files.clients);
  if (clients.includes(client)) return;
  await writeFile(files.clients, JSON.stringify([...clients, client].sort(), null, 2), { mode: 0o644 });
};

const readClients = async (path: string): Promise<string[]> => {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
};

export type VerifiedTokenClaims = JwtPayload;

export interface LocalTokenVerifierOptions {
  /** What "now" is for the token's times; the wall clock unless a test moves its own. */
  readonly clock?: Clock;
}

/**
 * Verifies tokens at least as strictly as API Gateway's JWT authorizer: the RS256 signature against the
 * issuer's JWKS (`kid` must name its key), the issuer, a client the issuer registered (API Gateway's
 * audience list), `token_use: access`, and — on every use, cached or not — the token's times
 * (`assertTokenInForce`: a required `exp` after now, a required `iat` at most a few seconds ahead, a
 * lifetime of at most a day, `nbf` reached). Group names outside the documented grammar refuse the token
 * here, where the claim is still the JSON array Cognito writes. The route's scope is checked by the
 * middleware, as in AWS. Returns the claims, or throws.
 */
export const createLocalTokenVerifier = async (dataDir: string, options: LocalTokenVerifierOptions = {}) => {
  const clock = options.clock ?? systemClock;
  const issuer = await ensureLocalIssuer(dataDir);
  const clientsFile = filesOf(dataDir).clients;
  let known: { mtimeMs: number; clients: ReadonlySet<string> } = { mtimeMs: -1, clients: new Set() };
  let checkedAt = 0;
  const reread = async () => {
    checkedAt = Date.now();
    const info = await stat(clientsFile).catch(() => undefined);
    if (info && info.mtimeMs !== known.mtimeMs) {
      known = { mtimeMs: info.mtimeMs, clients: new Set(await readClients(clientsFile)) };
    }
  };
  const clientIsRegistered = async (client: unknown): Promise<boolean> => {
    // A known client is re-checked at most every 250 ms (a client taken off the registry is refused within
    // that); an unknown one at once (the issuer may have just registered it).
    if (Date.now() - checkedAt > 250 || !known.clients.has(client as string)) await reread();
    return typeof client === 'string' && known.clients.has(client);
  };
  const verifier = JwtRsaVerifier.create({
    issuer: LOCAL_ISSUER,
    audience: null,
    jwksUri: 'urn:memory-hub:local-issuer:jwks',
    customJwtCheck: ({ payload }) => {
      if (payload.token_use !== 'access') throw new Error('not an access token');
      const groups = payload['cognito:groups'];
      if (groups !== undefined && !(Array.isArray(groups) && groups.every(isMemoryHubGroupName)))
        throw new Error('groups outside the documented names');
    },
  });
  verifier.cacheJwks(issuer.jwks);
  // An agent sends the same token with many requests: remember that its signature and claims verified, as
  // API Gateway's authorizer caches its results. Its times and the client registry are checked on every use.
  const verified = new Map<string, VerifiedTokenClaims>();
  return async (token: string): Promise<VerifiedTokenClaims> => {
    let claims = verified.get(token);
    if (!claims) {
      claims = await verifier.verify(token);
      if (verified.size >= VERIFIED_TOKEN_CACHE) verified.clear();
      verified.set(token, claims);
    }
    try {
      assertTokenInForce(claims, clock.now());
    } catch (error) {
      verified.delete(token);
      throw error;
    }
    if (!(await clientIsRegistered(claims.client_id))) throw new Error('unknown client');
    return claims;
  };
};

const VERIFIED_TOKEN_CACHE = 10_000;
