import { readFileSync } from 'node:fs';
import type { LocalApi } from './local-api.ts';
import { CANARY } from './openapi-arbitraries.ts';
import type { DocumentedOperation } from './openapi-document.ts';

/*
 * What the API fuzz needs to reach past "not found": real records the fuzzed principal owns (ids, keys, ETags),
 * real cursors from every listing, and a catalogue of tokens, from valid to forged, each with what the service
 * must do with it. This file alone knows how to create records; the operations fuzzed come from the document.
 */

/** A marker in every fixture's content: a response to a caller of another tenant must never hold it. */
export const FIXTURE_SECRET = 'zqfixturesecret';
export const FIXTURE_PROJECT = 'fuzzproject';
export const FIXTURE_SESSION = 'fuzzsession';

export type FixtureKind =
  | 'note'
  | 'projectNote'
  | 'procedure'
  | 'task'
  | 'candidate'
  | 'belief'
  | 'guardrail'
  | 'projectGuardrail'
  | 'project'
  | 'session'
  | 'workflow'
  | 'run';

/** Which fixture a path parameter names, by the route it appears in; undefined for a parameter we have none for. */
export const fixtureKindOf = (path: string, parameter: string): FixtureKind | undefined => {
  if (parameter === 'projectId') return 'project';
  if (parameter === 'sessionId') return 'session';
  if (parameter === 'runId') return 'run';
  if (parameter === 'name' && path.startsWith('/v1/admin/workflows/')) return 'workflow';
  if (parameter === 'key') return path.startsWith('/v1/projects/') ? 'projectGuardrail' : 'guardrail';
  if (parameter !== 'id') return undefined;
  if (path.startsWith('/v1/projects/{projectId}/notes/')) return 'projectNote';
  if (path.startsWith('/v1/projects/{projectId}/procedures/')) return 'procedure';
  if (path.startsWith('/v1/projects/{projectId}/tasks/')) return 'task';
  if (path.startsWith('/v1/projects/{projectId}/candidates/')) return 'candidate';
  if (path.startsWith('/v1/notes/')) return 'note';
  if (path.startsWith('/v1/beliefs/')) return 'belief';
  return undefined;
};

/** The record an operation's If-Match is about: the one its last path parameter names. */
export const recordKindOf = (operation: DocumentedOperation): FixtureKind | undefined => {
  const last = operation.parameters.filter((parameter) => parameter.in === 'path').at(-1);
  return last ? fixtureKindOf(operation.path, last.name) : undefined;
};

// ---------------------------------------------------------------------------------------------------------
// Tokens

/**
 * What the service must do with a token: `accepted` never answers 401; `refused` never answers 2xx nor what
 * only an authenticated caller can get; `no-role` (a group claim that tries to smuggle a role) succeeds only
 * where the same principal without groups does; `read-only` never writes; `neutral` only has to meet the
 * invariants every response meets.
 */
export type TokenExpectation = 'accepted' | 'refused' | 'no-role' | 'read-only' | 'neutral';

export interface IssuedToken {
  /** The Authorization header's credentials (scheme added by the plan's form), or undefined for none. */
  readonly credentials: string | undefined;
  /** A whole header value for tokens that are garbage as a header. */
  readonly header?: string;
  /**
   * For a token whose group claim tries to smuggle a role: the same principal with no groups, sent the same
   * request first. The smuggling token may succeed only where this one does.
   */
  readonly twinCredentials?: string;
  /** The tenant the token names, when it verifies. */
  readonly tenant?: string;
}

interface TokenKind {
  readonly weight: number;
  readonly expectation: TokenExpectation;
  /** `fill` turns CANARY into fresh canaries; `storable` says whether the service may keep them (claims it records). */
  readonly issue: (
    world: FuzzWorld,
    fill: (text: string, storable: boolean) => string,
    operation: DocumentedOperation,
  ) => Promise<IssuedToken>;
}

const now = () => Math.floor(Date.now() / 1000);
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export const TOKEN_KINDS: Readonly<Record<string, TokenKind>> = {
  owner: {
    weight: 10,
    expectation: 'accepted',
    issue: async (world) => ({ credentials: world.ownerToken, tenant: 'acme' }),
  },
  orgAdmin: {
    weight: 10,
    expectation: 'accepted',
    issue: async (world) => ({ credentials: world.adminToken, tenant: 'acme' }),
  },
  stranger: {
    weight: 3,
    expectation: 'accepted',
    issue: async (world) => ({ credentials: world.strangerToken, tenant: 'globex' }),
  },
  canaryPrincipal: {
    weight: 2,
    expectation: 'accepted',
    issue: async (world, fill) => {
      const tenant = fill(CANARY, true);
      return { credentials: await world.signed({ sub: fill(CANARY, true), 'custom:tenant': tenant }), tenant };
    },
  },
  none: { weight: 2, expectation: 'refused', issue: async () => ({ credentials: undefined }) },
  expired: {
    weight: 1,
    expectation: 'refused',
    issue: async (world) => ({ credentials: await world.signed({ iat: now() - 7200, exp: now() - 3600 }) }),
  },
  withoutExpiry: {
    weight: 1,
    expectation: 'refused',
    issue: async (world) => ({ credentials: await world.signed({ exp: undefined }) }),
  },
  issuedInFuture: {
    weight: 1,
    expectation: 'refused',
    issue: async (world) => ({ credentials: await world.signed({ iat: now() + 3600, exp: now() + 7200 }) }),
  },
  tenYearLifetime: {
    weight: 1,
    expectation: 'refused',
    issue: async (world) => ({ credentials: await world.signed({ exp: now() + 10 * 365 * 86_400 }) }),
  },
  wrongIssuer: {
    weight: 1,
    expectation: 'refused',
    issue: async (world, fill) => ({
      credentials: await world.signed({ iss: `https://${fill(CANARY, false)}.example` }),
    }),
  },
  idToken: {
    weight: 1,
    expectation: 'refused',
    issue: async (world) => ({ credentials: await world.signed({ token_use: 'id' }) }),
  },
  unknownClient: {
    weight: 1,
    expectation: 'refused',
    issue: async (world, fill) => ({ credentials: await world.signed({ client_id: fill(CANARY, false) }) }),
  },
  badSubject: {
    weight: 1,
    expectation: 'refused',
    issue: async (world, fill) => ({ credentials: await world.signed({ sub: `${fill(CANARY, false)}/../admin` }) }),
  },
  withoutTenant: {
    weight: 1,
    expectation: 'refused',
    issue: async (world) => ({ credentials: await world.signed({ 'custom:tenant': undefined }) }),
  },
  unsigned: {
    weight: 1,
    expectation: 'refused',
    issue: async (world, fill) => ({
      credentials: `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...world.ownerClaims, sub: fill(CANARY, false) })}.`,
    }),
  },
  tampered: {
    weight: 1,
    expectation: 'refused',
    issue: async (world, fill) => {
      const [header, , signature] = world.ownerToken.split('.');
      return { credentials: `${header}.${base64url({ ...world.ownerClaims, sub: fill(CANARY, false) })}.${signature}` };
    },
  },
  garbageBearer: {
    weight: 1,
    expectation: 'refused',
    issue: async (_world, fill) => ({ credentials: fill(`eyJ${CANARY}.${CANARY}.${CANARY}`, false) }),
  },
  garbageHeader: {
    weight: 1,
    expectation: 'refused',
    issue: async (_world, fill) => ({ credentials: undefined, header: fill(`Basic ${CANARY}`, false) }),
  },
  emptyBearer: {
    weight: 1,
    expectation: 'refused',
    issue: async () => ({ credentials: undefined, header: 'Bearer ' }),
  },
  // A group name holding a separator must stay one (unknown) group, never two.
  smuggledAdminGroup: {
    weight: 1,
    expectation: 'no-role',
    issue: (world, fill) => world.smuggling(fill(CANARY, true), [`project:${FIXTURE_PROJECT}:member,org:admin`]),
  },
  spacedAdminGroup: {
    weight: 1,
    expectation: 'no-role',
    issue: (world, fill) => world.smuggling(fill(CANARY, true), [`project:${FIXTURE_PROJECT}:admin org:admin`]),
  },
  groupsAsString: {
    weight: 1,
    expectation: 'no-role',
    issue: (world, fill) => world.smuggling(fill(CANARY, true), `project:${FIXTURE_PROJECT}:admin,org:admin`),
  },
  readOnly: {
    weight: 1,
    expectation: 'read-only',
    issue: async (world) => ({ credentials: world.readOnlyToken, tenant: 'acme' }),
  },
  /** Whoever may list the operation (the owner, or the org admin where the owner is forbidden): for cursors. */
  lister: {
    weight: 0,
    expectation: 'accepted',
    issue: async (world, _fill, operation) => ({ credentials: world.listerOf(operation.operationId), tenant: 'acme' }),
  },
  // Odd but not wrong: the service may take them or refuse them, as long as it answers well.
  withoutScope: {
    weight: 1,
    expectation: 'neutral',
    issue: async (world) => ({ credentials: await world.signed({ scope: undefined }), tenant: 'acme' }),
  },
  extraClaims: {
    weight: 1,
    expectation: 'neutral',
    issue: async (world, fill) => ({
      credentials: await world.signed({
        aud: fill(CANARY, false),
        nbf: now() + 3600,
        extra: { nested: [fill(CANARY, false)] },
      }),
      tenant: 'acme',
    }),
  },
};

// ---------------------------------------------------------------------------------------------------------
// Records

interface FixtureRecord {
  /** The id or key in its path. */
  readonly value: string;
  readonly firstEtag: string;
  currentEtag: string;
}

type Json = Record<string, unknown>;

const WORKFLOWS = JSON.parse(
  readFileSync(new URL('../../lambdas/generated/workflows.json', import.meta.url), 'utf8'),
) as { workflows: { name: string }[] };

/**
 * The fuzzed principal (`alice` of tenant `acme`, admin of one project), an org admin of the same tenant and a
 * caller of another; records they own, created when first needed and again once a fuzzed DELETE removed them.
 */
export class FuzzWorld {
  readonly api: LocalApi;
  readonly ownerToken: string;
  readonly ownerClaims: Json;
  readonly adminToken: string;
  readonly strangerToken: string;
  readonly readOnlyToken: string;
  /**
   * Every listing as harvested, by operationId: the path it was listed on (fixtures filled in) and, where it had a
   * second page, the cursor to it.
   */
  readonly listings = new Map<string, { readonly path: string; readonly cursor?: string }>();
  /** The fixtures' content marker and every id the service gave a fixture, for the cross-tenant leak check. */
  readonly secrets = new Set<string>([FIXTURE_SECRET]);
  readonly #records = new Map<FixtureKind, FixtureRecord>();
  readonly #listers = new Map<string, string>();
  #serial = 0;

  private constructor(api: LocalApi, tokens: { owner: string; admin: string; stranger: string; readOnly: string }) {
    this.api = api;
    this.ownerToken = tokens.owner;
    this.ownerClaims = JSON.parse(Buffer.from(tokens.owner.split('.')[1] ?? '', 'base64url').toString('utf8')) as Json;
    this.adminToken = tokens.admin;
    this.strangerToken = tokens.stranger;
    this.readOnlyToken = tokens.readOnly;
  }

  static async create(api: LocalApi): Promise<FuzzWorld> {
    const owner = await api.token({ tenant: 'acme', sub: 'alice', groups: [`project:${FIXTURE_PROJECT}:admin`] });
    const claims = JSON.parse(Buffer.from(owner.split('.')[1] ?? '', 'base64url').toString('utf8')) as Json;
    const readScopes = String(claims.scope ?? '')
      .split(' ')
      .filter((scope) => /read/.test(scope))
      .join(' ');
    return new FuzzWorld(api, {
      owner,
      admin: await api.token({
        tenant: 'acme',
        sub: 'boss',
        groups: ['org:admin', `project:${FIXTURE_PROJECT}:admin`],
      }),
      stranger: await api.token({
        tenant: 'globex',
        sub: 'alice',
        groups: [`project:${FIXTURE_PROJECT}:admin`, 'org:admin'],
      }),
      readOnly: await api.signedToken({ ...claims, sub: 'reader', 'cognito:groups': undefined, scope: readScopes }),
    });
  }

  /** A token signed by the local issuer with the owner's claims, overridden (undefined drops a claim). */
  signed(overrides: Json): Promise<string> {
    return this.api.signedToken({ ...this.ownerClaims, iat: now(), exp: now() + 600, jti: undefined, ...overrides });
  }

  /** A token of a new principal of the fixtures' tenant whose groups claim is `groups`, and its twin without. */
  async smuggling(sub: string, groups: unknown): Promise<IssuedToken> {
    return {
      credentials: await this.signed({ sub, 'cognito:groups': groups }),
      twinCredentials: await this.signed({ sub, 'cognito:groups': undefined }),
      tenant: 'acme',
    };
  }

  listerOf(operationId: string): string {
    return this.#listers.get(operationId) ?? this.ownerToken;
  }

  /** The path value of a fixture, creating the record when there is none yet. */
  async value(kind: FixtureKind): Promise<string> {
    if (kind === 'project') return FIXTURE_PROJECT;
    if (kind === 'session') return FIXTURE_SESSION;
    if (kind === 'workflow') return WORKFLOWS.workflows[0]?.name ?? 'none';
    return (await this.record(kind)).value;
  }

  async record(kind: FixtureKind): Promise<FixtureRecord> {
    let record = this.#records.get(kind);
    if (!record) {
      record = await this.#create(kind);
      this.#records.set(kind, record);
    }
    return record;
  }

  /** The ETag a plan asks for, about the record of `kind`. */
  async entityTag(kind: FixtureKind | undefined, which: string): Promise<string> {
    const record = await this.record(kind ?? 'note');
    const other = await this.record(kind === 'note' ? 'projectNote' : 'note');
    switch (which) {
      case 'first':
        return record.firstEtag;
      case 'other-record':
        return other.currentEtag;
      case 'current-lowercase':
        return record.currentEtag.toLowerCase();
      case 'current-weak':
        return `W/${record.currentEtag}`;
      case 'current-in-list':
        return `"1-AAAAAAAAAAAA", ${record.currentEtag}`;
      default:
        return record.currentEtag;
    }
  }

  /**
   * After a 2xx to `operation` that named the fixtures `named`: a DELETE removed them and a reset every belief
   * (made again when next needed); any other change moved the named record's ETag.
   */
  observe(operation: DocumentedOperation, named: readonly FixtureKind[], etag: string | undefined): void {
    if (operation.method === 'POST' && operation.path.endsWith('/reset')) this.#records.delete('belief');
    for (const kind of named) {
      const record = this.#records.get(kind);
      if (!record) continue;
      if (operation.method === 'DELETE') this.#records.delete(kind);
      else if (etag !== undefined && kind === recordKindOf(operation)) record.currentEtag = etag;
    }
  }

  /** A cursor some listing handed out: this operation's own, or another's. */
  cursor(operationId: string, from: 'same' | 'foreign', pick: number): string | undefined {
    const candidates = [...this.listings]
      .filter(([owner]) => (from === 'same') === (owner === operationId))
      .flatMap(([, listing]) => (listing.cursor === undefined ? [] : [listing.cursor]));
    return candidates.length > 0 ? candidates[pick % candidates.length] : undefined;
  }

  /**
   * Fills every listing with a second page and keeps its first page's cursor: two of each record, two revisions
   * of one, audit entries. Each listing is asked by the owner, or by the org admin where the owner gets 403.
   */
  async harvestCursors(operations: readonly DocumentedOperation[]): Promise<void> {
    for (const kind of ['note', 'projectNote', 'belief', 'guardrail', 'projectGuardrail'] as const) {
      await this.#create(kind);
      await this.record(kind);
    }
    await this.#revise('note');
    await this.#revise('belief');
    for (const text of ['first', 'second'])
      await this.#expect(201, 'POST', `/v1/sessions/${FIXTURE_SESSION}/events`, this.ownerToken, {
        type: 'message',
        role: 'user',
        text: `${FIXTURE_SECRET} ${text}`,
      });
    await this.api.server.relay.idle();
    for (const operation of operations) {
      if (operation.method !== 'GET' || !operation.parameters.some((parameter) => parameter.name === 'cursor'))
        continue;
      let path = operation.path;
      for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'path')) {
        const kind = fixtureKindOf(operation.path, parameter.name);
        if (kind) path = path.replace(`{${parameter.name}}`, encodeURIComponent(await this.value(kind)));
      }
      let token = this.ownerToken;
      let response = await this.api.request<{ nextCursor?: string }>('GET', `${path}?limit=1`, { token });
      if (response.status === 403) {
        token = this.adminToken;
        response = await this.api.request<{ nextCursor?: string }>('GET', `${path}?limit=1`, { token });
      }
      this.#listers.set(operation.operationId, token);
      this.listings.set(operation.operationId, {
        path,
        ...(response.body.nextCursor !== undefined && { cursor: response.body.nextCursor }),
      });
    }
  }

  async #create(kind: FixtureKind): Promise<FixtureRecord> {
    const record = await this.#createRecord(kind);
    // Ids the service made up are secrets; a guardrail key is a name any tenant may choose too.
    if (kind !== 'guardrail' && kind !== 'projectGuardrail') this.secrets.add(record.value);
    return record;
  }

  async #createRecord(kind: FixtureKind): Promise<FixtureRecord> {
    const serial = ++this.#serial;
    const text = `${FIXTURE_SECRET} ${serial}`;
    switch (kind) {
      case 'note':
        return this.#created(await this.#expect(201, 'POST', '/v1/notes', this.ownerToken, { text }));
      case 'projectNote':
        return this.#created(
          await this.#expect(201, 'POST', `/v1/projects/${FIXTURE_PROJECT}/notes`, this.ownerToken, { text }),
        );
      case 'procedure':
        return this.#created(
          await this.#expect(201, 'POST', `/v1/projects/${FIXTURE_PROJECT}/procedures`, this.ownerToken, {
            metadata: { title: text, description: text, taskFamily: 'fuzz' },
            steps: [{ id: 'only', instruction: text }],
          }),
        );
      case 'task':
        return this.#created(await this.#fixtureTask(text));
      case 'candidate': {
        // A task whose one node the owner (the project's admin, so its manager too) ran and verified, completed.
        const task = String((await this.#fixtureTask(text)).body.id);
        const records = `/v1/projects/${FIXTURE_PROJECT}/tasks/${task}/records`;
        for (const outcome of ['started', 'done', 'verified'])
          await this.#expect(201, 'POST', records, this.ownerToken, { node: 'only', outcome });
        const completed = await this.#expect(
          200,
          'POST',
          `/v1/projects/${FIXTURE_PROJECT}/tasks/${task}/complete`,
          this.ownerToken,
          { outcome: 'completed', benefit: 1 },
        );
        return this.#created({ ...completed, body: completed.body.candidate as Json });
      }
      case 'belief': {
        const appended = await this.#expect(201, 'POST', `/v1/sessions/${FIXTURE_SESSION}/events`, this.ownerToken, {
          type: 'signal',
          key: `fuzz.fixture${serial}`,
          value: FIXTURE_SECRET,
          kind: 'preference',
          basis: 'behavioral',
        });
        const belief = (appended.body.beliefs as { id: string }[])[0];
        if (!belief) throw new Error('the fixture signal touched no belief');
        const read = await this.#expect(200, 'GET', `/v1/beliefs/${belief.id}`, this.ownerToken);
        return this.#created(read);
      }
      case 'guardrail': {
        const key = `fuzz.guardrail${serial}`;
        const put = await this.#expect(201, 'PUT', `/v1/guardrails/${key}`, this.adminToken, {
          type: 'locked',
          value: FIXTURE_SECRET,
        });
        return { value: key, firstEtag: String(put.body.etag), currentEtag: String(put.body.etag) };
      }
      case 'projectGuardrail': {
        const key = `fuzz.guardrail${serial}`;
        const put = await this.#expect(
          201,
          'PUT',
          `/v1/projects/${FIXTURE_PROJECT}/guardrails/${key}`,
          this.ownerToken,
          {
            type: 'enum',
            allowed: [FIXTURE_SECRET, 'other'],
            default: FIXTURE_SECRET,
          },
        );
        return { value: key, firstEtag: String(put.body.etag), currentEtag: String(put.body.etag) };
      }
      case 'run': {
        const started = await this.#expect(
          202,
          'POST',
          `/v1/admin/workflows/${await this.value('workflow')}`,
          this.adminToken,
        );
        return { value: String(started.body.id), firstEtag: '"1-AAAAAAAAAAAA"', currentEtag: '"1-AAAAAAAAAAAA"' };
      }
      default:
        throw new Error(`no record to create for ${kind}`);
    }
  }

  /** A second revision (or a second confirmation) of the fixture, so its history has two pages. */
  async #revise(kind: 'note' | 'belief'): Promise<void> {
    const record = await this.record(kind);
    if (kind === 'note') {
      const patched = await this.#expect(
        200,
        'PATCH',
        `/v1/notes/${record.value}`,
        this.ownerToken,
        { text: `${FIXTURE_SECRET} revised` },
        record.currentEtag,
      );
      record.currentEtag = String(patched.body.etag);
      return;
    }
    const patched = await this.#expect(
      200,
      'PATCH',
      `/v1/beliefs/${record.value}`,
      this.ownerToken,
      { value: `${FIXTURE_SECRET} corrected` },
      record.currentEtag,
    );
    record.currentEtag = String(patched.body.etag);
  }

  /** A one-node task assigned to the owner. */
  #fixtureTask(text: string): Promise<{ body: Json }> {
    return this.#expect(201, 'POST', `/v1/projects/${FIXTURE_PROJECT}/tasks`, this.ownerToken, {
      objective: text,
      plan: { nodes: [{ id: 'only', action: text, assignee: 'alice' }], edges: [] },
    });
  }

  #created(response: { body: Json }): FixtureRecord {
    return {
      value: String(response.body.id),
      firstEtag: String(response.body.etag),
      currentEtag: String(response.body.etag),
    };
  }

  async #expect(
    status: number,
    method: string,
    path: string,
    token: string,
    body?: unknown,
    ifMatch?: string,
  ): Promise<{ body: Json }> {
    const response = await this.api.request<Json>(method, path, {
      token,
      ...(body !== undefined && { body }),
      ...(ifMatch !== undefined && { headers: { 'if-match': ifMatch } }),
    });
    if (response.status !== status)
      throw new Error(
        `fixture ${method} ${path} answered ${response.status}, not ${status}: ${JSON.stringify(response.body)}`,
      );
    return response;
  }
}
