import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredSignal as declared } from '../support/learning-events.ts';
import { LocalApi, tokenLookup } from '../support/local-api.ts';

type GuardrailBody = {
  key: string;
  scope: 'organisation' | 'project';
  projectId?: string;
  guardrail: Record<string, unknown>;
  revision: number;
  etag: string;
};
type GuardrailPage = { items: GuardrailBody[]; nextCursor?: string };
type ErrorBody = {
  error: { code: string; message: string; requestId?: string; issues?: { path: string; message: string }[] };
};
type Clamp = {
  key: string;
  requested: unknown;
  applied: unknown;
  guardrail: { scope: string; type: string };
  reason: string;
};
type AppliedEntry = { value: unknown; source: string; belief?: { id: string; kind: string } };
type Applied = {
  agent: string;
  project?: string;
  values: Record<string, AppliedEntry>;
  clamps: Clamp[];
  limitations: unknown[];
};
type Belief = { id: string; key: string; etag: string; applied: boolean; appliedValue?: unknown };
type InspectedBelief = Belief & { clamps: Clamp[] };
type Appended = { beliefs: Belief[] };
type AuditEntry = {
  id: string;
  occurredAt: string;
  actor: { principal: string; client: string };
  action: string;
  recordKind: string | null;
  recordId: string | null;
  decision: string;
  reasonCode: string;
};

describe('API: guardrails over real HTTP', () => {
  let api: LocalApi;
  const tokens: Record<string, string> = {};
  const token = tokenLookup(tokens);

  beforeAll(async () => {
    api = await LocalApi.start();
    tokens.orgAdmin = await api.token({ sub: 'olga', groups: ['org:admin'] });
    tokens.member = await api.token({ sub: 'mark' });
    tokens.projectAdmin = await api.token({ sub: 'pam', groups: ['project:p1:admin'] });
    tokens.projectMember = await api.token({ sub: 'pete', groups: ['project:p1:member'] });
    tokens.nonMember = await api.token({ sub: 'nora', groups: ['project:p2:member'] });
    tokens.otherTenantAdmin = await api.token({
      tenant: 'globex',
      sub: 'olga',
      groups: ['org:admin', 'project:p1:admin'],
    });
  });

  afterAll(async () => {
    await api.stop();
  });

  const put = (path: string, body: unknown, as = 'orgAdmin', ifMatch?: string) =>
    api.request<GuardrailBody & ErrorBody>('PUT', path, {
      token: token(as),
      body,
      ...(ifMatch !== undefined && { headers: { 'if-match': ifMatch } }),
    });
  const get = (path: string, as = 'orgAdmin') =>
    api.request<GuardrailBody & ErrorBody>('GET', path, { token: token(as) });
  const list = (path: string, as = 'orgAdmin') =>
    api.request<GuardrailPage & ErrorBody>('GET', `${path}?limit=100`, { token: token(as) });
  const remove = (path: string, as = 'orgAdmin', ifMatch?: string) =>
    api.request<ErrorBody>('DELETE', path, {
      token: token(as),
      ...(ifMatch !== undefined && { headers: { 'if-match': ifMatch } }),
    });

  /** Sets an organisation guardrail that must not exist yet. */
  const orgGuardrail = async (key: string, guardrail: unknown): Promise<GuardrailBody> => {
    const response = await put(`/v1/guardrails/${key}`, guardrail);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  };
  const projectGuardrail = async (project: string, key: string, guardrail: unknown, as = 'projectAdmin') => {
    const response = await put(`/v1/projects/${project}/guardrails/${key}`, guardrail, as);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  };

  const learn = async (principal: string, body: unknown, session = 's1'): Promise<Belief> => {
    const response = await api.request<Appended>('POST', `/v1/sessions/${session}/events`, {
      token: principal,
      body,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const belief = response.body.beliefs[0];
    if (belief === undefined) throw new Error('the signal taught nothing');
    expect(belief.applied).toBe(true);
    return belief;
  };
  const applied = (principal: string, agent = 'coder', project?: string) =>
    api.request<Applied & ErrorBody>(
      'GET',
      `/v1/applied?agent=${agent}${project === undefined ? '' : `&project=${project}`}`,
      { token: principal },
    );
  const clampsOf = (view: Applied, key: string) => view.clamps.filter((clamp) => clamp.key === key);

  const auditTrail = async (as = 'orgAdmin', tokenValue?: string): Promise<AuditEntry[]> => {
    const entries: AuditEntry[] = [];
    let cursor: string | undefined;
    do {
      const response = await api.request<{ items: AuditEntry[]; nextCursor?: string }>(
        'GET',
        `/v1/audit?limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        { token: tokenValue ?? token(as) },
      );
      expect(response.status).toBe(200);
      entries.push(...response.body.items);
      cursor = response.body.nextCursor;
    } while (cursor);
    return entries;
  };

  describe('Organisation guardrails: CRUD', () => {
    it('creates with 201, Location and ETag, then reads and lists it', async () => {
      // Prepare
      const guardrail = { type: 'range', min: 0, max: 10, default: 5 };

      // Act
      const created = await put('/v1/guardrails/crud.volume', guardrail);
      const read = await get('/v1/guardrails/crud.volume');
      const listed = await list('/v1/guardrails');

      // Assess
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe('/v1/guardrails/crud.volume');
      expect(created.headers.get('etag')).toBe(created.body.etag);
      expect(created.body).toMatchObject({ key: 'crud.volume', scope: 'organisation', guardrail, revision: 1 });
      expect(created.body.projectId).toBeUndefined();
      expect(read.status).toBe(200);
      expect(read.headers.get('etag')).toBe(created.body.etag);
      expect(read.body).toMatchObject({ key: 'crud.volume', scope: 'organisation', guardrail, revision: 1 });
      expect(listed.status).toBe(200);
      expect(listed.body.items.find((item) => item.key === 'crud.volume')).toMatchObject({ guardrail });
    });

    it('replaces under If-Match (200), and answers 428 without it and 412 with a stale one', async () => {
      // Prepare
      const first = await orgGuardrail('crud.tone', { type: 'enum', allowed: ['calm', 'brisk'], default: 'calm' });
      const replacement = { type: 'enum', allowed: ['calm', 'brisk', 'warm'], default: 'warm' };

      // Act
      const withoutIfMatch = await put('/v1/guardrails/crud.tone', replacement);
      const replaced = await put('/v1/guardrails/crud.tone', replacement, 'orgAdmin', first.etag);
      const stale = await put('/v1/guardrails/crud.tone', { type: 'deny' }, 'orgAdmin', first.etag);
      const read = await get('/v1/guardrails/crud.tone');

      // Assess
      expect(withoutIfMatch.status).toBe(428);
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ guardrail: replacement, revision: 2 });
      expect(replaced.headers.get('etag')).toBe(replaced.body.etag);
      expect(replaced.body.etag).not.toBe(first.etag);
      expect(stale.status).toBe(412);
      expect(stale.headers.get('etag')).toBe(replaced.body.etag);
      expect(read.body).toMatchObject({ guardrail: replacement, revision: 2 });
    });

    it('answers 412 to an If-Match on a key that has no guardrail', async () => {
      const response = await put('/v1/guardrails/crud.never', { type: 'deny' }, 'orgAdmin', '"nothing-here"');
      expect(response.status).toBe(412);
      expect((await get('/v1/guardrails/crud.never')).status).toBe(404);
    });

    it('deletes under If-Match (204), after which it is 404 and gone from the list', async () => {
      // Prepare
      const created = await orgGuardrail('crud.gone', { type: 'locked', value: 'x' });

      // Act
      const withoutIfMatch = await remove('/v1/guardrails/crud.gone');
      const stale = await remove('/v1/guardrails/crud.gone', 'orgAdmin', '"0-stale"');
      const deleted = await remove('/v1/guardrails/crud.gone', 'orgAdmin', created.etag);

      // Assess
      expect(withoutIfMatch.status).toBe(428);
      expect(stale.status).toBe(412);
      expect(deleted.status).toBe(204);
      expect((await get('/v1/guardrails/crud.gone')).status).toBe(404);
      expect((await list('/v1/guardrails')).body.items.map((item) => item.key)).not.toContain('crud.gone');
      expect((await remove('/v1/guardrails/crud.gone', 'orgAdmin', created.etag)).status).toBe(404);
    });

    it('tells a caller who may not manage a guardrail so before asking for If-Match', async () => {
      // Prepare
      const organisation = await orgGuardrail('crud.kept', { type: 'deny' });
      const project = await projectGuardrail('p1', 'crud.narrowed', { type: 'deny' });

      // Act
      const byMember = await remove('/v1/guardrails/crud.kept', 'member');
      const byNonMember = await remove('/v1/projects/p1/guardrails/crud.narrowed', 'nonMember');
      const byProjectMember = await remove('/v1/projects/p1/guardrails/crud.narrowed', 'projectMember');
      const byAdmin = await remove('/v1/guardrails/crud.kept', 'orgAdmin');

      // Assess: 403 and 404 as before the If-Match rule, 428 only for whoever could go on
      expect([byMember.status, byNonMember.status, byProjectMember.status, byAdmin.status]).toEqual([
        403, 404, 403, 428,
      ]);
      expect((await get('/v1/guardrails/crud.kept')).status).toBe(200);
      expect((await remove('/v1/projects/p1/guardrails/crud.narrowed', 'projectAdmin', project.etag)).status).toBe(204);
      expect((await remove('/v1/guardrails/crud.kept', 'orgAdmin', organisation.etag)).status).toBe(204);
    });

    it('creates again with 201 after a delete', async () => {
      const first = await orgGuardrail('crud.again', { type: 'deny' });
      expect((await remove('/v1/guardrails/crud.again', 'orgAdmin', first.etag)).status).toBe(204);

      const again = await put('/v1/guardrails/crud.again', { type: 'range', min: 1, max: 2 });

      expect(again.status).toBe(201);
      expect(again.body.guardrail).toEqual({ type: 'range', min: 1, max: 2 });
    });
  });

  describe('Organisation guardrails: validation', () => {
    const refusal = async (body: unknown, key = 'valid.key') => {
      const response = await put(`/v1/guardrails/${key}`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(422);
      expect((await get(`/v1/guardrails/${key}`)).status).toBe(404);
      return response.body.error;
    };

    it('refuses a range whose min exceeds its max', async () => {
      const error = await refusal({ type: 'range', min: 10, max: 0 });
      expect(error.issues).toContainEqual({ path: 'body.max', message: 'min must not exceed max' });
    });

    it('refuses a range whose default lies outside it', async () => {
      const error = await refusal({ type: 'range', min: 0, max: 10, default: 11 });
      expect(error.issues).toContainEqual({ path: 'body.default', message: 'default must lie within [min, max]' });
    });

    it('refuses an enum whose default is not allowed', async () => {
      const error = await refusal({ type: 'enum', allowed: ['a', 'b'], default: 'c' });
      expect(error.issues).toContainEqual({
        path: 'body.default',
        message: 'default must be one of the allowed values',
      });
    });

    it('refuses an enum without a default', async () => {
      const error = await refusal({ type: 'enum', allowed: ['a', 'b'] });
      expect(error.issues?.map((issue) => issue.path)).toContain('body.default');
    });

    it('refuses an unknown type, naming the types', async () => {
      const error = await refusal({ type: 'maximum', value: 3 });
      expect(error.issues).toContainEqual({
        path: 'body.type',
        message: 'type must be one of range, enum, locked, deny',
      });
    });

    it('refuses a deny guardrail with a default, saying why', async () => {
      const error = await refusal({ type: 'deny', default: 'x' });
      expect(error.issues).toContainEqual({
        path: 'body.default',
        message: 'a deny guardrail drops the key, so it takes no default',
      });
    });

    it('refuses a locked guardrail without a value', async () => {
      const error = await refusal({ type: 'locked' });
      expect(error.issues?.map((issue) => issue.path)).toContain('body.value');
    });

    it.each([
      ['an upper-case letter', 'Tone'],
      ['a leading digit', '1tone'],
      ['a leading underscore', '_tone'],
      ['65 characters', `a${'b'.repeat(64)}`],
      ['a percent-encoded slash', 'style%2Ftone'],
    ])('refuses a key with %s, neither storing it nor failing', async (_, key) => {
      const written = await put(`/v1/guardrails/${key}`, { type: 'deny' });
      const read = await get(`/v1/guardrails/${key}`);

      for (const response of [written, read]) {
        expect([404, 422]).toContain(response.status);
      }
      expect((await list('/v1/guardrails')).body.items.map((item) => item.key)).not.toContain(key);
    });
  });

  describe('Authorization', () => {
    let orgEtag: string;
    let projectEtag: string;

    beforeAll(async () => {
      orgEtag = (await orgGuardrail('auth.limit', { type: 'range', min: 0, max: 100 })).etag;
      projectEtag = (await projectGuardrail('p1', 'auth.limit', { type: 'range', min: 10, max: 50 })).etag;
    });

    it("lets a member who is not an org admin read the organisation's guardrails but not write them (403)", async () => {
      const read = await get('/v1/guardrails/auth.limit', 'member');
      const listed = await list('/v1/guardrails', 'member');
      const created = await put('/v1/guardrails/auth.new', { type: 'deny' }, 'member');
      const replaced = await put('/v1/guardrails/auth.limit', { type: 'deny' }, 'member', orgEtag);
      const deleted = await remove('/v1/guardrails/auth.limit', 'member', orgEtag);

      expect(read.status).toBe(200);
      expect(read.body.guardrail).toEqual({ type: 'range', min: 0, max: 100 });
      expect(listed.body.items.map((item) => item.key)).toContain('auth.limit');
      expect([created.status, replaced.status, deleted.status]).toEqual([403, 403, 403]);
      expect((await get('/v1/guardrails/auth.new')).status).toBe(404);
      expect((await get('/v1/guardrails/auth.limit')).body).toMatchObject({ revision: 1, etag: orgEtag });
    });

    it("does not let a project admin manage the organisation's guardrails", async () => {
      expect((await put('/v1/guardrails/auth.pam', { type: 'deny' }, 'projectAdmin')).status).toBe(403);
      expect((await remove('/v1/guardrails/auth.limit', 'projectAdmin', orgEtag)).status).toBe(403);
    });

    it("lets a project member read the project's guardrails but not write them (403)", async () => {
      const base = '/v1/projects/p1/guardrails';
      const read = await get(`${base}/auth.limit`, 'projectMember');
      const listed = await list(base, 'projectMember');
      const created = await put(`${base}/auth.new`, { type: 'deny' }, 'projectMember');
      const replaced = await put(`${base}/auth.limit`, { type: 'deny' }, 'projectMember', projectEtag);
      const deleted = await remove(`${base}/auth.limit`, 'projectMember', projectEtag);

      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ scope: 'project', projectId: 'p1', guardrail: { min: 10, max: 50 } });
      expect(listed.body.items.map((item) => item.key)).toEqual(['auth.limit']);
      expect([created.status, replaced.status, deleted.status]).toEqual([403, 403, 403]);
      expect((await get(`${base}/auth.limit`, 'projectAdmin')).body).toMatchObject({ revision: 1 });
    });

    it("does not let an org admin who is not a project admin manage the project's guardrails", async () => {
      // The org admin is not a member of p1: the project is not theirs to see.
      expect((await put('/v1/projects/p1/guardrails/auth.olga', { type: 'deny' })).status).toBe(404);
    });

    it('answers 404 on every project guardrail path to a caller outside the project', async () => {
      const base = '/v1/projects/p1/guardrails';
      const statuses = [
        (await get(`${base}/auth.limit`, 'nonMember')).status,
        (await list(base, 'nonMember')).status,
        (await put(`${base}/auth.limit`, { type: 'deny' }, 'nonMember', projectEtag)).status,
        (await put(`${base}/auth.other`, { type: 'deny' }, 'nonMember')).status,
        (await remove(`${base}/auth.limit`, 'nonMember', projectEtag)).status,
        (await get(`${base}/auth.limit`, 'member')).status,
      ];

      expect(statuses).toEqual([404, 404, 404, 404, 404, 404]);
      expect((await get(`${base}/auth.limit`, 'projectAdmin')).body).toMatchObject({ revision: 1 });
    });

    it("never shows one tenant another tenant's guardrails", async () => {
      // Act
      const orgRead = await get('/v1/guardrails/auth.limit', 'otherTenantAdmin');
      const orgList = await list('/v1/guardrails', 'otherTenantAdmin');
      const projectRead = await get('/v1/projects/p1/guardrails/auth.limit', 'otherTenantAdmin');
      const projectList = await list('/v1/projects/p1/guardrails', 'otherTenantAdmin');
      const deleted = await remove('/v1/projects/p1/guardrails/auth.limit', 'otherTenantAdmin', projectEtag);
      const deletedOrg = await remove('/v1/guardrails/auth.limit', 'otherTenantAdmin', orgEtag);
      // The same key in the other tenant is a guardrail of its own: created, not a revision of this one.
      const ownPut = await put('/v1/guardrails/auth.limit', { type: 'deny' }, 'otherTenantAdmin');

      // Assess
      expect(orgRead.status).toBe(404);
      expect(orgList.body.items).toEqual([]);
      expect(projectRead.status).toBe(404);
      expect(projectList.body.items).toEqual([]);
      expect(deleted.status).toBe(404);
      expect(deletedOrg.status).toBe(404);
      expect(ownPut.status).toBe(201);
      expect(ownPut.body).toMatchObject({ revision: 1, guardrail: { type: 'deny' } });
      expect((await get('/v1/guardrails/auth.limit')).body).toMatchObject({
        revision: 1,
        etag: orgEtag,
        guardrail: { type: 'range', min: 0, max: 100 },
      });
      expect((await get('/v1/projects/p1/guardrails/auth.limit', 'projectAdmin')).body).toMatchObject({
        revision: 1,
      });
    });
  });

  describe('Project guardrails against the organisation', () => {
    const conflict = async (key: string, guardrail: unknown) => {
      const response = await put(`/v1/projects/p1/guardrails/${key}`, guardrail, 'projectAdmin');
      expect(response.status, JSON.stringify(response.body)).toBe(409);
      expect(response.body.error.code).toBe('guardrail.conflicts_with_organisation');
      expect((await get(`/v1/projects/p1/guardrails/${key}`, 'projectAdmin')).status).toBe(404);
    };

    it('refuses any project guardrail on a key the organisation locks', async () => {
      await orgGuardrail('conflict.locked', { type: 'locked', value: 'org' });
      await conflict('conflict.locked', { type: 'locked', value: 'org' });
      await conflict('conflict.locked', { type: 'enum', allowed: ['org', 'p1'], default: 'org' });
    });

    it('refuses any project guardrail on a key the organisation denies', async () => {
      await orgGuardrail('conflict.denied', { type: 'deny' });
      await conflict('conflict.denied', { type: 'deny' });
      await conflict('conflict.denied', { type: 'range', min: 0, max: 1 });
    });

    it("refuses a project range disjoint from the organisation's, and accepts one inside it", async () => {
      await orgGuardrail('conflict.range', { type: 'range', min: 0, max: 10 });
      await conflict('conflict.range', { type: 'range', min: 20, max: 30 });
      await conflict('conflict.range', { type: 'locked', value: 11 });
      await conflict('conflict.range', { type: 'enum', allowed: [-1, 'ten'], default: 'ten' });

      const narrowing = await put(
        '/v1/projects/p1/guardrails/conflict.range',
        { type: 'range', min: 2, max: 8 },
        'projectAdmin',
      );

      expect(narrowing.status).toBe(201);
      expect(narrowing.headers.get('location')).toBe('/v1/projects/p1/guardrails/conflict.range');
      expect(narrowing.body).toMatchObject({ scope: 'project', projectId: 'p1', key: 'conflict.range' });
    });

    it('refuses a replacement that would conflict, keeping the guardrail in force', async () => {
      await orgGuardrail('conflict.replace', { type: 'range', min: 0, max: 10 });
      const first = await projectGuardrail('p1', 'conflict.replace', { type: 'range', min: 1, max: 9 });

      const replaced = await put(
        '/v1/projects/p1/guardrails/conflict.replace',
        { type: 'range', min: 50, max: 60 },
        'projectAdmin',
        first.etag,
      );

      expect(replaced.status).toBe(409);
      expect((await get('/v1/projects/p1/guardrails/conflict.replace', 'projectAdmin')).body).toMatchObject({
        revision: 1,
        guardrail: { min: 1, max: 9 },
      });
    });

    it('accepts a project guardrail on a key the organisation does not bound', async () => {
      const created = await put('/v1/projects/p1/guardrails/conflict.free', { type: 'deny' }, 'projectAdmin');
      expect(created.status).toBe(201);
    });
  });

  describe('Clamps in the applied view', () => {
    it('moves a number above the range to its max, with a clamp record', async () => {
      // Prepare
      await orgGuardrail('clamp.verbosity', { type: 'range', min: 0, max: 10 });
      const ann = await api.token({ sub: 'ann' });
      const belief = await learn(ann, declared('clamp.verbosity', 15, { agent: 'coder' }));

      // Act
      const view = await applied(ann);

      // Assess
      expect(view.status).toBe(200);
      expect(view.body.values['clamp.verbosity']).toEqual({
        value: 10,
        source: 'guardrail',
        belief: { id: belief.id, kind: 'preference' },
      });
      expect(clampsOf(view.body, 'clamp.verbosity')).toEqual([
        {
          key: 'clamp.verbosity',
          requested: 15,
          applied: 10,
          guardrail: { scope: 'organisation', type: 'range' },
          reason: 'range.above_max',
        },
      ]);
      expect(view.body.limitations).toEqual([]);
    });

    it('moves a number below the range to its min', async () => {
      await orgGuardrail('clamp.depth', { type: 'range', min: 2, max: 4 });
      const abe = await api.token({ sub: 'abe' });
      await learn(abe, declared('clamp.depth', -3, { kind: 'profile' }));

      const view = (await applied(abe)).body;

      expect(view.values['clamp.depth']).toMatchObject({ value: 2, source: 'guardrail' });
      expect(clampsOf(view, 'clamp.depth')).toEqual([
        expect.objectContaining({ requested: -3, applied: 2, reason: 'range.below_min' }),
      ]);
    });

    it('replaces a value the enum does not allow with its default', async () => {
      await orgGuardrail('clamp.tone', { type: 'enum', allowed: ['formal', 'neutral'], default: 'neutral' });
      const bea = await api.token({ sub: 'bea' });
      await learn(bea, declared('clamp.tone', 'zzz-unique-tone'));

      const view = (await applied(bea)).body;

      expect(view.values['clamp.tone']).toMatchObject({ value: 'neutral', source: 'guardrail' });
      expect(clampsOf(view, 'clamp.tone')).toEqual([
        {
          key: 'clamp.tone',
          requested: 'zzz-unique-tone',
          applied: 'neutral',
          guardrail: { scope: 'organisation', type: 'enum' },
          reason: 'enum.not_allowed',
        },
      ]);
    });

    it('leaves an allowed value as the principal set it, without a clamp', async () => {
      const bob = await api.token({ sub: 'bob-allowed' });
      await learn(bob, declared('clamp.tone', 'formal'));

      const view = (await applied(bob)).body;

      expect(view.values['clamp.tone']).toMatchObject({ value: 'formal', source: 'personal' });
      expect(clampsOf(view, 'clamp.tone')).toEqual([]);
    });

    it("imposes a locked value over the principal's, and on a principal who has none without a clamp", async () => {
      // Prepare
      await orgGuardrail('clamp.theme', { type: 'locked', value: 'dark' });
      const cal = await api.token({ sub: 'cal' });
      const cid = await api.token({ sub: 'cid' });
      await learn(cal, declared('clamp.theme', 'light', { agent: 'coder' }));

      // Act
      const withValue = (await applied(cal)).body;
      const withoutValue = (await applied(cid, 'writer')).body;

      // Assess
      expect(withValue.values['clamp.theme']).toMatchObject({ value: 'dark', source: 'guardrail' });
      expect(clampsOf(withValue, 'clamp.theme')).toEqual([
        {
          key: 'clamp.theme',
          requested: 'light',
          applied: 'dark',
          guardrail: { scope: 'organisation', type: 'locked' },
          reason: 'locked',
        },
      ]);
      expect(withoutValue.values['clamp.theme']).toEqual({ value: 'dark', source: 'guardrail' });
      expect(clampsOf(withoutValue, 'clamp.theme')).toEqual([]);
    });

    it('drops a denied key, with a clamp record whose applied value is null', async () => {
      await orgGuardrail('clamp.tracking', { type: 'deny' });
      const dot = await api.token({ sub: 'dot' });
      await learn(dot, declared('clamp.tracking', true, { kind: 'profile' }));

      const view = (await applied(dot)).body;

      expect(Object.keys(view.values)).not.toContain('clamp.tracking');
      expect(clampsOf(view, 'clamp.tracking')).toEqual([
        {
          key: 'clamp.tracking',
          requested: true,
          applied: null,
          guardrail: { scope: 'organisation', type: 'deny' },
          reason: 'denied',
        },
      ]);
    });

    it('fills a key the principal lacks with the enum or range default, without a clamp', async () => {
      await orgGuardrail('default.style', { type: 'enum', allowed: ['terse', 'chatty'], default: 'terse' });
      await orgGuardrail('default.width', { type: 'range', min: 40, max: 120, default: 80 });
      await orgGuardrail('default.none', { type: 'range', min: 40, max: 120 });
      const eve = await api.token({ sub: 'eve' });

      const view = (await applied(eve)).body;

      expect(view.values['default.style']).toEqual({ value: 'terse', source: 'default' });
      expect(view.values['default.width']).toEqual({ value: 80, source: 'default' });
      expect(Object.keys(view.values)).not.toContain('default.none');
      expect(view.clamps.filter((clamp) => clamp.key.startsWith('default.'))).toEqual([]);
    });

    it('narrows further by the project guardrail with ?project=, and 404s a project the caller is not in', async () => {
      // Prepare
      await orgGuardrail('narrow.tokens', { type: 'range', min: 0, max: 100 });
      await projectGuardrail('p1', 'narrow.tokens', { type: 'range', min: 10, max: 50 });
      await projectGuardrail('p1', 'narrow.mode', { type: 'enum', allowed: ['safe'], default: 'safe' });
      const fay = await api.token({ sub: 'fay', groups: ['project:p1:member'] });
      await learn(fay, declared('narrow.tokens', 80, { agent: 'coder' }));
      await learn(fay, declared('narrow.mode', 'fast', { agent: 'coder' }));

      // Act
      const organisationOnly = (await applied(fay)).body;
      const inProject = await applied(fay, 'coder', 'p1');
      const outsideProject = await applied(fay, 'coder', 'p2');

      // Assess
      expect(organisationOnly.values['narrow.tokens']).toMatchObject({ value: 80, source: 'personal' });
      expect(organisationOnly.values['narrow.mode']).toMatchObject({ value: 'fast', source: 'personal' });
      expect(inProject.status).toBe(200);
      expect(inProject.body.project).toBe('p1');
      expect(inProject.body.values['narrow.tokens']).toMatchObject({ value: 50, source: 'guardrail' });
      expect(inProject.body.values['narrow.mode']).toMatchObject({ value: 'safe', source: 'guardrail' });
      expect(clampsOf(inProject.body, 'narrow.tokens')).toEqual([
        {
          key: 'narrow.tokens',
          requested: 80,
          applied: 50,
          guardrail: { scope: 'project', type: 'range' },
          reason: 'range.above_max',
        },
      ]);
      expect(clampsOf(inProject.body, 'narrow.mode')).toEqual([
        expect.objectContaining({ requested: 'fast', applied: 'safe', guardrail: { scope: 'project', type: 'enum' } }),
      ]);
      expect(outsideProject.status).toBe(404);
    });

    it('clamps each element of a multi-valued key, with one clamp for the refused element', async () => {
      // Prepare
      await orgGuardrail('multi.langs', { type: 'enum', allowed: ['a', 'b'], default: 'b' });
      const gus = await api.token({ sub: 'gus' });
      await learn(gus, declared('multi.langs', 'a', { cardinality: 'multi' }));
      const belief = await learn(gus, declared('multi.langs', 'c', { cardinality: 'multi' }));
      expect(belief.appliedValue).toEqual(expect.arrayContaining(['a', 'c']));

      // Act
      const view = (await applied(gus)).body;

      // Assess
      expect(view.values['multi.langs']).toEqual({
        value: ['a', 'b'],
        source: 'guardrail',
        belief: { id: belief.id, kind: 'preference' },
      });
      expect(clampsOf(view, 'multi.langs')).toEqual([
        {
          key: 'multi.langs',
          requested: 'c',
          applied: 'b',
          guardrail: { scope: 'organisation', type: 'enum' },
          reason: 'enum.not_allowed',
        },
      ]);
    });

    it('audits every clamp for an org admin, without the requested value', async () => {
      // Prepare
      await orgGuardrail('audit.tone', { type: 'enum', allowed: ['plain'], default: 'plain' });
      await orgGuardrail('audit.level', { type: 'range', min: 0, max: 3 });
      await orgGuardrail('audit.secret', { type: 'deny' });
      const hal = await api.token({ sub: 'hal' });
      await learn(hal, declared('audit.tone', 'zzz-unique-tone'));
      await learn(hal, declared('audit.level', 9, { agent: 'coder' }));
      await learn(hal, declared('audit.secret', 'zzz-unique-secret', { kind: 'profile' }));

      // Act
      const view = (await applied(hal)).body;
      await applied(hal);
      const trail = await auditTrail();

      // Assess
      const ownClamps = view.clamps.filter((clamp) => clamp.key.startsWith('audit.'));
      expect(ownClamps.map((clamp) => [clamp.key, clamp.reason])).toEqual([
        ['audit.level', 'range.above_max'],
        ['audit.secret', 'denied'],
        ['audit.tone', 'enum.not_allowed'],
      ]);
      const entries = trail.filter((entry) => entry.action === 'applied.clamp' && entry.actor.principal === 'hal');
      for (const clamp of ownClamps) {
        const matching = entries.filter((entry) => entry.recordId === clamp.key && entry.reasonCode === clamp.reason);
        // A repeated read of the same clamp on the same day is not audited twice.
        expect(matching, clamp.key).toHaveLength(1);
        expect(matching[0]).toMatchObject({ decision: 'clamped', recordKind: 'guardrail' });
      }
      const everything = JSON.stringify(trail);
      expect(everything).not.toContain('zzz-unique-tone');
      expect(everything).not.toContain('zzz-unique-secret');
    });

    it('does not let an org admin recover a requested value by guessing it against an audit entry', async () => {
      // Prepare: a small value space, as numbers and short words usually are
      await orgGuardrail('audit.dose', { type: 'range', min: 0, max: 3 });
      const ivy = await api.token({ sub: 'ivy' });
      await learn(ivy, declared('audit.dose', 37, { kind: 'profile' }));
      await applied(ivy);
      const entry = (await auditTrail()).find(
        (candidate) => candidate.action === 'applied.clamp' && candidate.actor.principal === 'ivy',
      );
      if (entry === undefined) throw new Error('the clamp was not audited');

      // Act: everything but the requested value is in the entry, the guardrail or a short list of agent names
      const recovered: number[] = [];
      for (let guess = -200; guess <= 200; guess++) {
        const clamp = {
          key: 'audit.dose',
          requested: guess,
          applied: 3,
          guardrail: { scope: 'organisation', type: 'range' },
          reason: entry.reasonCode,
        };
        const digest = createHash('sha256')
          .update(JSON.stringify(['acme', 'ivy', 'coder', null, entry.occurredAt.slice(0, 10), clamp]))
          .digest('base64url')
          .slice(0, 26);
        if (entry.id === `clamp-${digest}`) recovered.push(guess);
      }

      // Assess
      expect(recovered).toEqual([]);
    });

    it('keeps the audit trail to org admins', async () => {
      const response = await api.request('GET', '/v1/audit', { token: token('member') });
      expect(response.status).toBe(403);
    });

    it('shows the clamp on the belief itself, and the project clamp with ?project=', async () => {
      // Prepare
      await orgGuardrail('inspect.retries', { type: 'range', min: 0, max: 5 });
      await projectGuardrail('p1', 'inspect.retries', { type: 'range', min: 0, max: 2 });
      const ida = await api.token({ sub: 'ida', groups: ['project:p1:member'] });
      const belief = await learn(ida, declared('inspect.retries', 7, { agent: 'coder' }));
      const unclamped = await learn(ida, declared('inspect.free', 7, { agent: 'coder' }));

      // Act
      const inspected = await api.request<InspectedBelief>('GET', `/v1/beliefs/${belief.id}`, { token: ida });
      const inProject = await api.request<InspectedBelief>('GET', `/v1/beliefs/${belief.id}?project=p1`, {
        token: ida,
      });
      const outsideProject = await api.request('GET', `/v1/beliefs/${belief.id}?project=p2`, { token: ida });
      const free = await api.request<InspectedBelief>('GET', `/v1/beliefs/${unclamped.id}`, { token: ida });

      // Assess
      expect(inspected.status).toBe(200);
      expect(inspected.body).toMatchObject({ key: 'inspect.retries', applied: true, appliedValue: 7 });
      expect(inspected.body.clamps).toEqual([
        {
          key: 'inspect.retries',
          requested: 7,
          applied: 5,
          guardrail: { scope: 'organisation', type: 'range' },
          reason: 'range.above_max',
        },
      ]);
      expect(inProject.body.clamps).toEqual([
        // The organisation refused 7 first, so its guardrail is named; the value lands inside both.
        expect.objectContaining({ requested: 7, applied: 2, guardrail: { scope: 'organisation', type: 'range' } }),
      ]);
      expect(outsideProject.status).toBe(404);
      expect(free.body.clamps).toEqual([]);
    });
  });

  describe('Property: no request shape lets an agent receive a value outside an organisation guardrail', () => {
    let propertyApi: LocalApi;
    let admin: string;
    let projectAdmin: string;
    let run = 0;

    beforeAll(async () => {
      // Its own server, so that the many guardrails it sets bound no other test.
      propertyApi = await LocalApi.start();
      admin = await propertyApi.token({ tenant: 'initech', sub: 'root', groups: ['org:admin'] });
      projectAdmin = await propertyApi.token({ tenant: 'initech', sub: 'lead', groups: ['project:pp:admin'] });
    });

    afterAll(async () => {
      await propertyApi.stop();
    });

    // Whole numbers and quarters: exact through JSON, and never digit runs the sensitive-content screen refuses.
    const number = fc.oneof(
      fc.integer({ min: -1000, max: 1000 }),
      fc.integer({ min: -4000, max: 4000 }).map((quarters) => quarters / 4),
    );
    const bounds = fc.tuple(number, number).map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) }));
    const organisationRange = bounds.chain(({ min, max }) =>
      fc
        .option(fc.integer({ min: 0, max: 4 }), { nil: undefined })
        .map((step) =>
          step === undefined
            ? { type: 'range', min, max }
            : { type: 'range', min, max, default: min + ((max - min) * step) / 4 },
        ),
    );
    const requested = fc.oneof(number, number, number, fc.constantFrom('high', 'low'), fc.boolean());
    const agentName = fc.constantFrom('coder', 'writer', 'agent-7');
    const shape = fc.oneof(
      fc.constant({ kind: 'profile' }),
      fc.constant({ kind: 'preference' }),
      agentName.map((agent) => ({ kind: 'preference', agent })),
    );
    const scenario = fc.record({
      organisation: organisationRange,
      project: fc.option(bounds, { nil: undefined }),
      askWithProject: fc.boolean(),
      shape,
      cardinality: fc.constantFrom('single', 'multi'),
      signals: fc.array(requested, { minLength: 1, maxLength: 2 }),
      correction: fc.option(requested, { nil: undefined }),
      askingAgent: agentName,
    });

    const numbersIn = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

    it('keeps every applied value within [min, max]', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          // Prepare: a fresh key and principal per run
          run += 1;
          const key = `prop.k${run}`;
          const principal = await propertyApi.token({
            tenant: 'initech',
            sub: `p-${run}`,
            groups: ['project:pp:member'],
          });
          const orgPut = await propertyApi.request('PUT', `/v1/guardrails/${key}`, {
            token: admin,
            body: s.organisation,
          });
          expect(orgPut.status).toBe(201);
          let projectInForce: { min: number; max: number } | undefined;
          if (s.project !== undefined) {
            const overlap = {
              min: Math.max(s.organisation.min, s.project.min),
              max: Math.min(s.organisation.max, s.project.max),
            };
            const projectPut = await propertyApi.request('PUT', `/v1/projects/pp/guardrails/${key}`, {
              token: projectAdmin,
              body: { type: 'range', ...s.project },
            });
            expect(projectPut.status).toBe(overlap.min <= overlap.max ? 201 : 409);
            if (projectPut.status === 201) projectInForce = overlap;
          }
          let etag: string | undefined;
          let beliefId: string | undefined;
          for (const value of s.signals) {
            const appended = await propertyApi.request<Appended>('POST', `/v1/sessions/prop-${run}/events`, {
              token: principal,
              body: declared(key, value, { ...s.shape, cardinality: s.cardinality }),
            });
            expect(appended.status).toBe(201);
            etag = appended.body.beliefs[0]?.etag;
            beliefId = appended.body.beliefs[0]?.id;
          }
          if (s.correction !== undefined && etag !== undefined && beliefId !== undefined) {
            const corrected = await propertyApi.request('PATCH', `/v1/beliefs/${beliefId}`, {
              token: principal,
              body: { value: s.correction },
              headers: { 'if-match': etag },
            });
            expect(corrected.status).toBe(200);
          }

          // Act
          const project = s.askWithProject ? '&project=pp' : '';
          const response = await propertyApi.request<Applied>('GET', `/v1/applied?agent=${s.askingAgent}${project}`, {
            token: principal,
          });

          // Assess
          expect(response.status).toBe(200);
          const bound = s.askWithProject && projectInForce !== undefined ? projectInForce : s.organisation;
          const entry = response.body.values[key];
          const reachesAgent = !('agent' in s.shape) || s.shape.agent === s.askingAgent;
          const everyValue = s.correction === undefined ? s.signals : [...s.signals, s.correction];
          // A number always lands inside the range, and a default fills or replaces anything else.
          const allNumbers = everyValue.every((value) => typeof value === 'number');
          if ((reachesAgent && allNumbers) || s.organisation.default !== undefined) expect(entry).toBeDefined();
          if (!reachesAgent && entry !== undefined) expect(entry.source).toBe('default');
          for (const value of entry === undefined ? [] : numbersIn(entry.value)) {
            expect(typeof value).toBe('number');
            expect(value as number).toBeGreaterThanOrEqual(s.organisation.min);
            expect(value as number).toBeLessThanOrEqual(s.organisation.max);
            expect(value as number).toBeGreaterThanOrEqual(bound.min);
            expect(value as number).toBeLessThanOrEqual(bound.max);
          }
          for (const clamp of clampsOf(response.body, key)) {
            if (clamp.applied !== null) {
              expect(clamp.applied as number).toBeGreaterThanOrEqual(bound.min);
              expect(clamp.applied as number).toBeLessThanOrEqual(bound.max);
            }
          }
        }),
        { numRuns: 25 },
      );
    });
  });
});
