import { describe, expect, it } from 'vitest';
import { Namespace, type namespaceConstructionToken } from '../../../lambdas/kernel/namespaces/namespace.ts';
import { namespaceFromStorageKey, systemActor } from '../../../lambdas/kernel/namespaces/system-namespaces.ts';
import { KINDS, RECORD_KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';

describe('Class: Namespace', () => {
  const alice = scopeOf({ tenant: 'acme', sub: 'alice', groups: ['project:p7:member'] });

  it('says why it cannot be built without the token', () => {
    const forge = () =>
      new Namespace(Symbol('namespace-construction') as typeof namespaceConstructionToken, {
        tenant: 'acme',
        principal: 'bob',
        kind: KINDS.note,
        owner: { type: 'principal' },
      });

    expect(forge).toThrow(TypeError);
    expect(forge).toThrow(new TypeError('A Namespace is built only by Scope.namespace()'));
  });

  it('is frozen: its key cannot be pointed elsewhere once built', () => {
    const namespace = alice.namespace(KINDS.note);

    expect(Object.isFrozen(namespace)).toBe(true);
    expect(() => {
      (namespace as { key: string }).key = 't/acme/p/bob/note';
    }).toThrow(TypeError);
    expect(namespace.key).toBe('t/acme/p/alice/note');
  });

  describe('Method: equals', () => {
    it('is true for the same address only', () => {
      const notes = alice.namespace(KINDS.note);

      expect(notes.equals(alice.namespace(KINDS.note))).toBe(true);
      for (const other of [
        alice.namespace(KINDS.note, { agent: 'coder' }),
        alice.namespace(KINDS.note, { project: 'p7' }),
        alice.namespace(KINDS.profile),
        scopeOf({ tenant: 'acme', sub: 'bob' }).namespace(KINDS.note),
      ])
        expect(notes.equals(other), other.key).toBe(false);
    });
  });

  it('builds the agent-and-session key in that order', () => {
    expect(alice.namespace(KINDS['session-events'], { agent: 'coder', session: 's1' }).key).toBe(
      't/acme/p/alice/session-events/a/coder/s/s1',
    );
  });

  it("narrows a project namespace to one of its tasks, and only a project's", () => {
    expect(alice.namespace(KINDS.note, { project: 'p7', task: 'T1' }).key).toBe('t/acme/g/p7/note/k/T1');
    expect(() => alice.namespace(KINDS.note, { task: 'T1' })).toThrow('A task narrows a project namespace only');
    expect(() => alice.namespace(KINDS.note, { project: 'p7', task: 'a/b' })).toThrow('Invalid task name');
    expect(() => alice.namespace(KINDS.note, { project: 'p8', task: 'T1' })).toThrow('Not found');
  });

  it('offers a hash that does not reveal its key', () => {
    const namespace = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS.note);

    expect(namespace.hash).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(namespace.hash).not.toContain('alice');
  });
});

describe('Function: namespaceFromStorageKey', () => {
  const scope = scopeOf({ tenant: 'acme', sub: 'alice', groups: ['project:p7:member'] });

  it('rebuilds, for system jobs, a namespace equal to the one Scope built, for every owner type, and nothing else', () => {
    const member = scopeOf({ groups: ['project:p1:member'] });
    const namespaces = [
      member.namespace(KINDS.preference, { agent: 'coder' }),
      member.namespace(KINDS['session-events'], { session: 's1' }),
      member.namespace(KINDS.guardrail, { project: 'p1' }),
      member.namespace(KINDS.guardrail, { organisation: true }),
    ];

    for (const namespace of namespaces)
      expect(namespaceFromStorageKey(namespace.key, RECORD_KINDS)?.equals(namespace)).toBe(true);
    expect(namespaceFromStorageKey('t/acme/o/nonsense', RECORD_KINDS)).toBeUndefined();
    expect(namespaceFromStorageKey('t/acme/o/guardrail/extra', RECORD_KINDS)).toBeUndefined();
  });

  it('rebuilds the owner of every kind of key, not only its key', () => {
    const cases = [
      [scope.namespace(KINDS.note), { type: 'principal' }],
      [
        scope.namespace(KINDS['session-events'], { agent: 'coder', session: 's1' }),
        { type: 'principal', agent: 'coder', session: 's1' },
      ],
      [scope.namespace(KINDS.note, { project: 'p7' }), { type: 'project', projectId: 'p7' }],
      [scope.namespace(KINDS.note, { project: 'p7', task: 'T1' }), { type: 'project', projectId: 'p7', task: 'T1' }],
      [scope.namespace(KINDS.guardrail, { organisation: true }), { type: 'organisation' }],
    ] as const;

    for (const [namespace, owner] of cases) {
      const rebuilt = namespaceFromStorageKey(namespace.key, RECORD_KINDS);
      expect(rebuilt?.owner, namespace.key).toEqual(owner);
      expect(rebuilt?.kind).toBe(namespace.kind);
      expect(rebuilt?.tenant).toBe('acme');
    }
  });

  it.each([
    't/acme/p/alice/unknown-kind',
    't/acme/p/alice/unknown-kind/s/s1',
    't/acme/g/p7/unknown-kind',
    't/acme/o/unknown-kind',
    // The organisation's space holds organisation-owned kinds only.
    't/acme/o/note',
    't/acme/p/alice',
    't/acme/x/alice/note',
    'acme/p/alice/note',
    't/acme/p/alice/note/',
    't/acme/g/p7/note/k/',
    't/acme/g/p7/note/k/T1/x',
    't/acme/p/al ice/note',
  ])('answers undefined for %j, never a namespace and never an error', (key) => {
    expect(namespaceFromStorageKey(key, RECORD_KINDS)).toBeUndefined();
  });
});

describe('Function: systemActor', () => {
  it("names the service's own principal and the job as the client", () => {
    expect(systemActor('retention-sweep')).toEqual({ principal: 'memory-hub-system', client: 'retention-sweep' });
  });
});
