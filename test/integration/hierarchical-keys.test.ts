import { chmod, copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as sdk from '@aws-crypto/client-node';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BranchKeyCreator } from '../../lambdas/adapters/crypto/branch-key-creator.ts';
import { NAMING_BRANCH_KEY_ID } from '../../lambdas/adapters/crypto/branch-key-ids.ts';
import { EncryptionSdkCipher, toSdkContext } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { HierarchicalKeys } from '../../lambdas/adapters/crypto/hierarchical-keys.ts';
import { localKeyring } from '../../lambdas/adapters/crypto/local-key-file.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import type { EncryptionContext } from '../../lambdas/kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../lambdas/kernel/crypto/crypto.errors.ts';
import type { KeyScope } from '../../lambdas/kernel/crypto/key-scope.ts';
import { contextOf } from '../contract/content-cipher.contract.ts';
import {
  awsModeKeys,
  cipherOver,
  type KeyStoreEngine,
  kmsConfigOf,
  localModeKeys,
  startKeyStoreEngine,
} from '../support/branch-keys.ts';
import { type KmsStandIn, startKmsStandIn } from '../support/kms-stand-in.ts';
import { KINDS } from '../support/record-kinds.ts';
import { newRecordId } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

const ACME_KEY = 'arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-0000-4000-8000-00000000acme';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const text = (plaintext: Uint8Array) => Buffer.from(plaintext).toString('utf8');

/** The context of a new record in a namespace a Scope built. */
const recordIn = (namespace: { tenant: string; key: string }): EncryptionContext => ({
  tenant: namespace.tenant,
  namespace: namespace.key,
  recordId: newRecordId(),
});

describe('Class: HierarchicalKeys', () => {
  let store: KeyStoreEngine;
  let standIn: KmsStandIn;

  beforeAll(async () => {
    store = await startKeyStoreEngine();
    standIn = await startKmsStandIn([ACME_KEY]);
  });

  afterAll(async () => {
    await store?.close();
    await standIn?.close();
  });

  /** AWS mode's keys over a fresh key store, counting KMS calls in `metrics`, and a cipher over them. */
  const awsMode = async (options: { cacheSeconds?: number; keyStoreTableName?: string } = {}) => {
    const metrics = new InMemoryMetrics();
    const keyStoreTableName = options.keyStoreTableName ?? (await store.newTable());
    const keys = awsModeKeys(store, { standIn, keyArn: ACME_KEY, keyStoreTableName, metrics, ...options });
    return { keys, cipher: cipherOver(keys), metrics, keyStoreTableName };
  };

  describe('Method: materials, through the cipher', () => {
    it('makes no KMS call for a warm request: another record of a scope already written and read', async () => {
      // Prepare: the scope's first write and read (the branch key created, then unwrapped for each direction)
      const { cipher, metrics } = await awsMode();
      const first = contextOf('acme', 'alice');
      await cipher.decrypt(await cipher.encrypt(bytes('cold'), first), first);
      const [callsBefore, countedBefore] = [standIn.calls.length, metrics.keyOperations];

      // Act
      const second = { ...first, recordId: newRecordId() };
      const plaintext = await cipher.decrypt(await cipher.encrypt(bytes('warm'), second), second);

      // Assess
      expect(text(plaintext)).toBe('warm');
      expect(standIn.calls.slice(callsBefore)).toEqual([]);
      expect(metrics.keyOperations).toBe(countedBefore);
      expect(countedBefore).toBeGreaterThan(0);
    });

    it('uses a branch key from memory for the cache period only, then has KMS unwrap it again', async () => {
      // Prepare
      const { cipher } = await awsMode({ cacheSeconds: 1 });
      const context = contextOf('acme', 'alice');
      await cipher.encrypt(bytes('cold'), context);
      const within = standIn.calls.length;
      await cipher.encrypt(bytes('warm'), context);
      expect(standIn.calls.slice(within)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const after = standIn.calls.length;

      // Act
      await cipher.encrypt(bytes('cache period over'), context);

      // Assess: the active branch key read and unwrapped again, nothing else
      expect(standIn.calls.slice(after).map((call) => [call.operation, call.encryptionContext?.type])).toEqual([
        ['Decrypt', 'branch:ACTIVE'],
      ]);
    });

    it('wraps each data key with its scope’s branch key: one per principal (every kind, agent, session), project and organisation', async () => {
      // Prepare
      const { keys, cipher, keyStoreTableName } = await awsMode();
      const alice = scopeOf({ sub: 'alice', groups: ['project:p7:member'] });
      const bob = scopeOf({ sub: 'bob', groups: ['project:p7:member'] });
      const written = {
        alice: [
          alice.namespace(KINDS.note),
          alice.namespace(KINDS.note, { agent: 'coder' }),
          alice.namespace(KINDS['session-events'], { session: 's1' }),
          alice.namespace(KINDS.preference),
        ],
        bob: [bob.namespace(KINDS.note)],
        p7: [alice.namespace(KINDS.note, { project: 'p7' }), bob.namespace(KINDS.note, { project: 'p7' })],
        org: [alice.namespace(KINDS.guardrail, { organisation: true })],
      };
      const scopes: Record<keyof typeof written, KeyScope> = {
        alice: { tenant: 'acme', owner: 'principal', principal: 'alice' },
        bob: { tenant: 'acme', owner: 'principal', principal: 'bob' },
        p7: { tenant: 'acme', owner: 'project', projectId: 'p7' },
        org: { tenant: 'acme', owner: 'organisation' },
      };

      // Act
      const ciphertexts = Object.fromEntries(
        await Promise.all(
          Object.entries(written).map(async ([owner, namespaces]) => [
            owner,
            await Promise.all(namespaces.map((namespace) => cipher.encrypt(bytes(owner), recordIn(namespace)))),
          ]),
        ),
      ) as Record<keyof typeof written, Uint8Array[]>;

      // Assess: each header names its owner's branch key, and no other
      const ids = Object.fromEntries(
        await Promise.all(Object.entries(scopes).map(async ([owner, scope]) => [owner, await keys.keyIdOf(scope)])),
      ) as Record<keyof typeof written, string>;
      expect(new Set(Object.values(ids)).size).toBe(4);
      for (const [owner, owned] of Object.entries(ciphertexts)) {
        for (const ciphertext of owned) {
          const named = Object.entries(ids).filter(([, id]) => Buffer.from(ciphertext).includes(Buffer.from(id)));
          expect(named.map(([name]) => name)).toEqual([owner]);
        }
      }
      const active = (await store.items(keyStoreTableName)).filter((item) => item.type === 'branch:ACTIVE');
      expect(active.map((item) => item['branch-key-id']).sort()).toEqual(
        [...Object.values(ids), NAMING_BRANCH_KEY_ID].sort(),
      );
    });

    it('refuses a namespace that is not its tenant’s rather than give it some key', async () => {
      // Prepare
      const { cipher } = await awsMode();

      // Act
      const encrypting = cipher.encrypt(bytes('nowhere'), {
        tenant: 'acme',
        namespace: 't/globex/p/alice/note',
        recordId: newRecordId(),
      });

      // Assess
      await expect(encrypting).rejects.toThrow(/names no namespace of its tenant/);
    });

    it('decrypts what the per-record KMS cipher wrote before branch keys, and writes none of it any more', async () => {
      // Prepare: a ciphertext as 4e635e7's cipher made it (a KMS data key per record, generated under the tenant's key)
      const { cipher, keyStoreTableName } = await awsMode();
      const context = contextOf('acme', 'alice');
      const perRecord = sdk.buildClient(sdk.CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);
      const kms = new sdk.KMS(kmsConfigOf(standIn));
      const { result: written } = await perRecord.encrypt(
        new sdk.KmsKeyringNode({ generatorKeyId: ACME_KEY, clientProvider: () => kms }),
        bytes('written before branch keys'),
        {
          encryptionContext: toSdkContext(context),
          suiteId: sdk.AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY,
        },
      );
      kms.destroy();
      const before = standIn.calls.length;

      // Act
      const plaintext = await cipher.decrypt(written, context);
      const storeAfterReading = await store.items(keyStoreTableName);
      await cipher.encrypt(bytes('written now'), { ...context, recordId: newRecordId() });

      // Assess: the old record's own data key decrypted by KMS; the new one wrapped by a branch key
      expect(text(plaintext)).toBe('written before branch keys');
      // A read-only function opens the old record without the key store: it creates nothing there (it may not)
      expect(storeAfterReading).toEqual([]);
      const calls = standIn.calls.slice(before);
      expect(calls.filter((call) => call.operation === 'GenerateDataKey')).toEqual([]);
      expect(calls).toContainEqual(
        expect.objectContaining({ operation: 'Decrypt', encryptionContext: toSdkContext(context) }),
      );
      await expect(cipher.decrypt(written, { ...context, recordId: newRecordId() })).rejects.toBeInstanceOf(
        CiphertextContextMismatchError,
      );
    });

    it('decrypts what local mode wrote under the raw key file before branch keys (a ciphertext committed by 4e635e7)', async () => {
      // Prepare: that installation's key file, and the key store table local mode now adds beside its data
      const fixture = JSON.parse(await readFile('test/fixtures/ciphertexts/local-key-4e635e7.json', 'utf8')) as {
        context: EncryptionContext;
        plaintext: string;
        ciphertext: string;
      };
      const keyFile = 'local-key-4e635e7.bin';
      await copyFile(join('test/fixtures/ciphertexts', keyFile), join(store.folder, keyFile));
      // Git keeps no file modes beyond the executable bit; the key file must be the owner's alone.
      await chmod(join(store.folder, keyFile), 0o600);
      const cipher = cipherOver(await localModeKeys(store, { keyStoreTableName: await store.newTable(), keyFile }));

      // Act
      const plaintext = await cipher.decrypt(
        new Uint8Array(Buffer.from(fixture.ciphertext, 'base64')),
        fixture.context,
      );

      // Assess
      expect(text(plaintext)).toBe(fixture.plaintext);
      const written = await cipher.encrypt(bytes('written now'), fixture.context);
      const bare = new EncryptionSdkCipher({ keys: localKeyring(await readFile(join(store.folder, keyFile))) });
      await expect(bare.decrypt(written, fixture.context)).rejects.toBeInstanceOf(CiphertextContextMismatchError);
    });

    it('opens nothing of a scope whose branch key was destroyed (the crypto-shredding seam), and everything else', async () => {
      // Prepare: two scopes written; then every item of alice's branch key deleted from the key store
      const { keys, cipher, keyStoreTableName } = await awsMode();
      const aliceContext = contextOf('acme', 'alice');
      const bobContext = contextOf('acme', 'bob');
      const [aliceCiphertext, bobCiphertext] = [
        await cipher.encrypt(bytes('alice’s'), aliceContext),
        await cipher.encrypt(bytes('bob’s'), bobContext),
      ];
      const aliceKeyId = await keys.keyIdOf({ tenant: 'acme', owner: 'principal', principal: 'alice' });
      for (const item of await store.items(keyStoreTableName)) {
        if (item['branch-key-id'] !== aliceKeyId) continue;
        await store.client.send(
          new DeleteItemCommand({
            TableName: keyStoreTableName,
            Key: { 'branch-key-id': { S: aliceKeyId }, type: { S: String(item.type) } },
          }),
        );
      }
      // Another process: nothing of alice's key in its memory.
      const { cipher: afterwards } = await awsMode({ keyStoreTableName });

      // Act
      const aliceReading = afterwards.decrypt(aliceCiphertext, aliceContext);
      const bobReading = afterwards.decrypt(bobCiphertext, bobContext);

      // Assess
      await expect(aliceReading).rejects.toBeInstanceOf(CiphertextContextMismatchError);
      expect(text(await bobReading)).toBe('bob’s');
    });
  });

  describe('Method: keyIdOf', () => {
    it('names no tenant, principal or project: the same id in every process over one key store, another over another', async () => {
      // Prepare
      const one = await awsMode();
      const sameStore = await awsMode({ keyStoreTableName: one.keyStoreTableName });
      const otherStore = await awsMode();
      const scope: KeyScope = { tenant: 'tenant-acme-1', owner: 'project', projectId: 'project-merger-x' };
      await one.cipher.encrypt(bytes('team plan'), {
        tenant: scope.tenant,
        namespace: `t/${scope.tenant}/g/${scope.projectId}/note`,
        recordId: newRecordId(),
      });

      // Act
      const ids = [
        await one.keys.keyIdOf(scope),
        await sameStore.keys.keyIdOf(scope),
        await otherStore.keys.keyIdOf(scope),
      ];

      // Assess
      expect(ids[0]).toMatch(/^mh1-[A-Za-z0-9_-]{43}$/);
      expect(ids[1]).toBe(ids[0]);
      expect(ids[2]).not.toBe(ids[0]);
      const stored = JSON.stringify(await store.items(one.keyStoreTableName));
      for (const identifier of ['tenant-acme-1', 'project-merger-x', 'merger']) {
        expect(stored).not.toContain(identifier);
      }
    });
  });

  describe('Method: createMissingKey', () => {
    it('of two processes writing a scope’s first records at once, creates one branch key, which both use', async () => {
      // Prepare
      const keyStoreTableName = await store.newTable();
      const [first, second] = [await awsMode({ keyStoreTableName }), await awsMode({ keyStoreTableName })];
      const [one, other] = [contextOf('acme', 'carol'), contextOf('acme', 'carol')];

      // Act
      const [fromFirst, fromSecond] = await Promise.all([
        first.cipher.encrypt(bytes('from the first'), one),
        second.cipher.encrypt(bytes('from the second'), other),
      ]);

      // Assess
      const carolKeyId = await first.keys.keyIdOf({ tenant: 'acme', owner: 'principal', principal: 'carol' });
      const active = (await store.items(keyStoreTableName)).filter(
        (item) => item['branch-key-id'] === carolKeyId && item.type === 'branch:ACTIVE',
      );
      expect(active).toHaveLength(1);
      expect(text(await second.cipher.decrypt(fromFirst, one))).toBe('from the first');
      expect(text(await first.cipher.decrypt(fromSecond, other))).toBe('from the second');
    });
  });

  describe('Method: constructor', () => {
    it.each([0, 3601, 1.5])('refuses a cache period of %s seconds', (cacheSeconds) => {
      // Act & Assess
      expect(
        () =>
          new HierarchicalKeys({
            keyArn: ACME_KEY,
            keyStore: { tableName: 'unused', logicalName: 'unused', client: store.client },
            cacheSeconds,
            metrics: new InMemoryMetrics(),
          }),
      ).toThrow(/1 to 3600 seconds/);
    });
  });
});

describe('Class: BranchKeyCreator', () => {
  let store: KeyStoreEngine;
  let standIn: KmsStandIn;
  let kms: sdk.KMS;

  beforeAll(async () => {
    store = await startKeyStoreEngine();
    standIn = await startKmsStandIn([ACME_KEY]);
    kms = new sdk.KMS(kmsConfigOf(standIn));
  });

  afterAll(async () => {
    kms?.destroy();
    await store?.close();
    await standIn?.close();
  });

  const creatorOver = (tableName: string) =>
    new BranchKeyCreator({
      keyArn: ACME_KEY,
      logicalKeyStoreName: 'logical-store',
      tableName,
      dynamoDb: store.client,
      kms,
    });

  const keyStoreOver = (tableName: string) =>
    new sdk.BranchKeyStoreNode({
      logicalKeyStoreName: 'logical-store',
      storage: { ddbTableName: tableName, ddbClient: store.client },
      keyManagement: { kmsClient: kms },
      kmsConfiguration: { identifier: ACME_KEY },
    });

  describe('Method: create', () => {
    it('writes the key store’s items, which the Encryption SDK’s BranchKeyStoreNode and hierarchical keyring read', async () => {
      // Prepare
      const tableName = await store.newTable();
      const creator = creatorOver(tableName);

      // Act
      const outcome = await creator.create('branch-key-under-test');

      // Assess: the items, attribute by attribute
      expect(outcome).toBe('created');
      const items = await store.items(tableName);
      const active = items.find((item) => item.type === 'branch:ACTIVE');
      const version = items.find((item) => String(item.type).startsWith('branch:version:'));
      const beacon = items.find((item) => item.type === 'beacon:ACTIVE');
      expect(items).toHaveLength(3);
      const shape = {
        'branch-key-id': 'branch-key-under-test',
        'kms-arn': ACME_KEY,
        'hierarchy-version': 1,
        'create-time': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        enc: expect.any(Uint8Array),
      };
      expect(version).toEqual({ ...shape, type: expect.stringMatching(/^branch:version:[0-9a-f-]{36}$/) });
      expect(active).toEqual({ ...shape, type: 'branch:ACTIVE', version: version?.type });
      expect(beacon).toEqual({ ...shape, type: 'beacon:ACTIVE' });
      expect(await creator.exists('branch-key-under-test')).toBe(true);
      expect(await creator.exists('another-branch-key')).toBe(false);

      // Assess: the SDK's key store reads the active and the version item as one key
      const keyStore = keyStoreOver(tableName);
      const activeKey = await keyStore.getActiveBranchKey('branch-key-under-test');
      const versionKey = await keyStore.getBranchKeyVersion(
        'branch-key-under-test',
        String(version?.type).replace('branch:version:', ''),
      );
      expect(activeKey.branchKey()).toHaveLength(32);
      expect(Buffer.from(activeKey.branchKey()).equals(Buffer.from(versionKey.branchKey()))).toBe(true);

      // Assess: and the SDK's hierarchical keyring encrypts and decrypts with it
      const keyring = new sdk.KmsHierarchicalKeyRingNode({
        keyStore,
        branchKeyId: 'branch-key-under-test',
        cacheLimitTtl: 60,
      });
      const client = sdk.buildClient(sdk.CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);
      const { result } = await client.encrypt(keyring, bytes('under a created branch key'), {
        encryptionContext: { purpose: 'test' },
      });
      const { plaintext } = await client.decrypt(keyring, result);
      expect(text(plaintext)).toBe('under a created branch key');
    });

    it('of two concurrent creations of one branch key, lets one win: one active item, the other told it raced', async () => {
      // Prepare
      const tableName = await store.newTable();
      const [one, other] = [creatorOver(tableName), creatorOver(tableName)];

      // Act
      const outcomes = await Promise.all([one.create('contended'), other.create('contended')]);

      // Assess: the loser's version item stays behind, unused; the active item names the winner's
      expect(outcomes.sort()).toEqual(['created', 'raced']);
      const items = await store.items(tableName);
      const active = items.filter((item) => item.type === 'branch:ACTIVE');
      expect(active).toHaveLength(1);
      expect(items.map((item) => item.type)).toContain(active[0]?.version);
      expect(items.filter((item) => item.type === 'beacon:ACTIVE')).toHaveLength(1);
      await expect(keyStoreOver(tableName).getActiveBranchKey('contended')).resolves.toBeDefined();
    });
  });
});
