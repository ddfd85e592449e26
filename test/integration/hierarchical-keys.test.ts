import { randomBytes } from 'node:crypto';
import { chmod, copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as sdk from '@aws-crypto/client-node';
import { DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BranchKeyCreator } from '../../lambdas/adapters/crypto/branch-key-creator.ts';
import { NAMING_BRANCH_KEY_ID } from '../../lambdas/adapters/crypto/branch-key-ids.ts';
import { EncryptionSdkCipher, toSdkContext } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { HierarchicalKeys } from '../../lambdas/adapters/crypto/hierarchical-keys.ts';
import { localKeyring } from '../../lambdas/adapters/crypto/local-key-file.ts';
import { LOCAL_KMS_KEY_ARN, LocalKms, localKmsClientConfig } from '../../lambdas/adapters/crypto/local-kms.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import type { EncryptionContext } from '../../lambdas/kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../lambdas/kernel/crypto/crypto.errors.ts';
import type { KeyScope } from '../../lambdas/kernel/crypto/key-scope.ts';
import { ServiceUnavailableError } from '../../lambdas/kernel/errors/domain-error.ts';
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
import { RecordingMetrics, ScriptedTransport } from '../support/scripted-transport.ts';

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

    it.each([
      [1, 1],
      [3600, 3600],
      [undefined, 300],
    ])('takes a cache period of %s seconds as %s', (given, kept) => {
      // Act
      const keys = new HierarchicalKeys({
        keyArn: ACME_KEY,
        keyStore: { tableName: 'unused', logicalName: 'unused', client: store.client },
        ...(given !== undefined && { cacheSeconds: given }),
        metrics: new InMemoryMetrics(),
      });

      // Assess
      expect(keys.cacheSeconds).toBe(kept);
    });

    it('is given local mode’s cache period, or keeps its default', async () => {
      // Act
      const [given, defaulted] = [
        await localModeKeys(store, { keyStoreTableName: await store.newTable(), keyFile: 'key.bin', cacheSeconds: 42 }),
        await localModeKeys(store, { keyStoreTableName: await store.newTable(), keyFile: 'key.bin' }),
      ];

      // Assess
      expect([given.cacheSeconds, defaulted.cacheSeconds]).toEqual([42, 300]);
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

  describe('Method: create, when KMS or the table fails', () => {
    /** A creator over the local KMS and the embedded engine, both through scripted transports. */
    const scriptedCreator = (tableName: string) => {
      const keyFileBytes = randomBytes(32);
      const kmsTransport = new ScriptedTransport(new LocalKms(keyFileBytes));
      const dynamoDb = new ScriptedTransport(store.engine.requestHandler);
      const creator = new BranchKeyCreator({
        keyArn: LOCAL_KMS_KEY_ARN,
        logicalKeyStoreName: 'logical-store',
        tableName,
        dynamoDb: new DynamoDBClient({
          endpoint: store.engine.endpoint,
          region: 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          requestHandler: dynamoDb,
          maxAttempts: 1,
        }),
        kms: new sdk.KMS({ ...localKmsClientConfig(keyFileBytes), requestHandler: kmsTransport, maxAttempts: 1 }),
      });
      return { creator, kms: kmsTransport, dynamoDb };
    };

    const withoutCiphertext = ({ CiphertextBlob: _, ...rest }: Record<string, unknown>) => rest;

    it.each([
      ['the version’s key', 'GenerateDataKeyWithoutPlaintext', 1, /A ciphertext blob is required/],
      ['the active item’s key', 'ReEncrypt', 1, /^KMS answered a branch key request without a ciphertext$/],
      [
        'the beacon key',
        'GenerateDataKeyWithoutPlaintext',
        2,
        /^KMS answered a branch key request without a ciphertext$/,
      ],
    ])('fails, storing nothing, when KMS answers for %s without a ciphertext', async (_, operation, nth, reason) => {
      // Prepare
      const tableName = await store.newTable();
      const { creator, kms: scripted } = scriptedCreator(tableName);
      let seen = 0;
      scripted.play((request) => {
        if (request.operation === operation) seen += 1;
        return request.operation === operation && seen === nth ? { change: withoutCiphertext } : undefined;
      });

      // Act
      const creating = creator.create('branch-key-under-test');

      // Assess
      await expect(creating).rejects.toThrow(reason);
      expect(await store.items(tableName)).toEqual([]);
    });

    it('fails with the table’s own error when a put is refused for anything but the key being there', async () => {
      // Prepare: a table that does not exist
      const { creator } = scriptedCreator('no-such-key-store');

      // Act
      const creating = creator.create('branch-key-under-test');

      // Assess: not "raced", which would send the caller to read a key that is not there
      await expect(creating).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    });

    it('asks the table whether a key exists with a strongly consistent read: a key created a moment ago is seen', async () => {
      // Prepare
      const tableName = await store.newTable();
      const { creator, dynamoDb } = scriptedCreator(tableName);

      // Act
      const found = await creator.exists('branch-key-under-test');

      // Assess
      expect(found).toBe(false);
      expect(dynamoDb.sent).toEqual([
        expect.objectContaining({ operation: 'GetItem', input: expect.objectContaining({ ConsistentRead: true }) }),
      ]);
    });
  });
});

describe('Class: HierarchicalKeys, over a local KMS and a key store table that fail as each test says', () => {
  let store: KeyStoreEngine;
  const keyFileBytes = randomBytes(32);
  let localDynamoDbConfig: {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };

  beforeAll(async () => {
    store = await startKeyStoreEngine();
    localDynamoDbConfig = {
      endpoint: store.engine.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    };
  });

  afterAll(async () => {
    await store?.close();
  });

  /** One process's keys over a deployment's key store table: KMS and DynamoDB reached through scripted transports. */
  const processOver = (keyStoreTableName: string, options: { metrics?: RecordingMetrics } = {}) => {
    const kms = new ScriptedTransport(new LocalKms(keyFileBytes));
    const dynamoDb = new ScriptedTransport(store.engine.requestHandler);
    // One attempt, so a refused call fails at once.
    const client = new DynamoDBClient({ ...localDynamoDbConfig, requestHandler: dynamoDb, maxAttempts: 1 });
    const metrics = options.metrics ?? new RecordingMetrics();
    const keys = new HierarchicalKeys({
      keyArn: LOCAL_KMS_KEY_ARN,
      keyStore: { tableName: keyStoreTableName, logicalName: 'scripted-branch-keys', client },
      kms: { config: { ...localKmsClientConfig(keyFileBytes), requestHandler: kms, maxAttempts: 1 } },
      metrics,
    });
    return { keys, cipher: cipherOver(keys), kms, dynamoDb, client, metrics };
  };

  const principal = (name: string): KeyScope => ({ tenant: 'acme', owner: 'principal', principal: name });

  /** The items of one branch key in a key store table, by type. */
  const itemsOf = async (keyStoreTableName: string, branchKeyId: string) =>
    (await store.items(keyStoreTableName)).filter((item) => item['branch-key-id'] === branchKeyId);

  /** What a call rejected with. */
  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error as Error,
    );

  const METRIC_OF_KMS_OPERATION: Record<string, string> = {
    GenerateDataKeyWithoutPlaintext: 'generate-data-key',
    ReEncrypt: 're-encrypt-data-key',
    Decrypt: 'decrypt-data-key',
  };

  describe('Metrics and the key store table', () => {
    it('counts every KMS call under its operation: a deployment’s first write makes the naming key, then the scope’s', async () => {
      // Prepare
      const one = processOver(await store.newTable());

      // Act
      await one.cipher.encrypt(bytes('first'), contextOf('acme', 'alice'));

      // Assess: each key generated, re-encrypted to its active item, its beacon generated; then unwrapped
      const created = ['GenerateDataKeyWithoutPlaintext', 'ReEncrypt', 'GenerateDataKeyWithoutPlaintext', 'Decrypt'];
      expect(one.kms.operations()).toEqual([...created, ...created]);
      expect(one.metrics.keyOperations).toEqual(
        one.kms.operations().map((operation) => METRIC_OF_KMS_OPERATION[operation]),
      );
    });

    it('counts every key store request with its operation and capacity, and reads the key store strongly consistent', async () => {
      // Prepare
      const keyStoreTableName = await store.newTable();
      const one = processOver(keyStoreTableName);

      // Act
      await one.cipher.encrypt(bytes('first'), contextOf('acme', 'alice'));
      await one.client.send(
        new GetItemCommand({
          TableName: keyStoreTableName,
          Key: { 'branch-key-id': { S: NAMING_BRANCH_KEY_ID }, type: { S: 'branch:ACTIVE' } },
        }),
      );

      // Assess: as sent to the table — every request asks for its capacity, every read is consistent (the SDK's
      // own key store reads and the one above ask for neither); each item is under 1 KB: one unit, not half
      const sent = one.dynamoDb.sent;
      expect(new Set(sent.map((request) => request.operation))).toEqual(new Set(['GetItem', 'PutItem']));
      for (const request of sent) {
        expect(request.input).toMatchObject({ TableName: keyStoreTableName, ReturnConsumedCapacity: 'TOTAL' });
        if (request.operation === 'GetItem') expect(request.input.ConsistentRead).toBe(true);
      }
      expect(one.metrics.storageRequests).toEqual(
        sent.map((request) => ({ operation: request.operation, capacityUnits: 1 })),
      );
    });

    it('leaves the same client’s requests to other tables as they were sent, and does not count them', async () => {
      // Prepare
      const one = processOver(await store.newTable());
      const elsewhere = await store.newTable();
      const key = { 'branch-key-id': { S: 'not-a-key-store-item' }, type: { S: 'other' } };

      // Act
      await one.client.send(new PutItemCommand({ TableName: elsewhere, Item: key }));
      await one.client.send(new GetItemCommand({ TableName: elsewhere, Key: key }));

      // Assess
      expect(one.dynamoDb.operations()).toEqual(['PutItem', 'GetItem']);
      for (const request of one.dynamoDb.sent) {
        expect(request.input).not.toHaveProperty('ConsistentRead');
        expect(request.input).not.toHaveProperty('ReturnConsumedCapacity');
      }
      expect(one.metrics.storageRequests).toEqual([]);
    });

    it('watches its key store table once when keys are built again over the same client (a composition made anew)', async () => {
      // Prepare
      const keyStoreTableName = await store.newTable();
      const one = processOver(keyStoreTableName);
      const again = () =>
        new HierarchicalKeys({
          keyArn: LOCAL_KMS_KEY_ARN,
          keyStore: { tableName: keyStoreTableName, logicalName: 'scripted-branch-keys', client: one.client },
          metrics: one.metrics,
        });

      // Act
      again();
      again();
      await one.client.send(
        new GetItemCommand({
          TableName: keyStoreTableName,
          Key: { 'branch-key-id': { S: NAMING_BRANCH_KEY_ID }, type: { S: 'branch:ACTIVE' } },
        }),
      );

      // Assess
      expect(one.metrics.storageRequests).toEqual([{ operation: 'GetItem', capacityUnits: 1 }]);
    });
  });

  describe('Faults of the key service and the key store', () => {
    it('turns a throttled key store table, met while a branch key is read for a decryption, into ServiceUnavailable', async () => {
      // Prepare: written by one process; read by another, which has its naming key but not alice's branch key
      const keyStoreTableName = await store.newTable();
      const context = contextOf('acme', 'alice');
      const ciphertext = await processOver(keyStoreTableName).cipher.encrypt(bytes('alice’s'), context);
      const reader = processOver(keyStoreTableName);
      await reader.keys.keyIdOf(principal('someone-else'));
      reader.dynamoDb.play(() => ({ refuse: 'ProvisionedThroughputExceededException' }));

      // Act
      const throttled = await failureOf(reader.cipher.decrypt(ciphertext, context));
      reader.dynamoDb.play(() => undefined);
      const afterwards = await reader.cipher.decrypt(ciphertext, context);

      // Assess: a mismatch would make the revision store drop the record as if it were foreign
      expect(throttled).toBeInstanceOf(ServiceUnavailableError);
      expect(text(afterwards)).toBe('alice’s');
    });

    it('turns a throttled KMS, met while the naming key is read, into ServiceUnavailable, and reads it at the next write', async () => {
      // Prepare: a deployment written to before; a new process
      const keyStoreTableName = await store.newTable();
      await processOver(keyStoreTableName).cipher.encrypt(bytes('earlier'), contextOf('acme', 'alice'));
      const later = processOver(keyStoreTableName);
      later.kms.play(() => ({ refuse: 'ThrottlingException' }));
      const context = contextOf('acme', 'bob');

      // Act
      const throttled = await failureOf(later.cipher.encrypt(bytes('bob’s'), context));
      later.kms.play(() => undefined);
      const ciphertext = await later.cipher.encrypt(bytes('bob’s'), context);

      // Assess
      expect(throttled).toBeInstanceOf(ServiceUnavailableError);
      expect(text(await later.cipher.decrypt(ciphertext, context))).toBe('bob’s');
    });

    it('fails a scope’s first write with ServiceUnavailable when KMS is throttled creating its key, and creates it at the next', async () => {
      // Prepare: a process that has read the naming key
      const keyStoreTableName = await store.newTable();
      const one = processOver(keyStoreTableName);
      const carolKeyId = await one.keys.keyIdOf(principal('carol'));
      one.kms.play((request) =>
        request.operation === 'GenerateDataKeyWithoutPlaintext' ? { refuse: 'ThrottlingException' } : undefined,
      );
      const context = contextOf('acme', 'carol');

      // Act
      const throttled = await failureOf(one.cipher.encrypt(bytes('carol’s'), context));
      const storedMeanwhile = await itemsOf(keyStoreTableName, carolKeyId);
      one.kms.play(() => undefined);
      const ciphertext = await one.cipher.encrypt(bytes('carol’s'), context);

      // Assess: the refusal kept as the cause; nothing half made, then one whole key
      expect(throttled).toBeInstanceOf(ServiceUnavailableError);
      expect(throttled?.cause).toMatchObject({ name: 'ThrottlingException' });
      expect(storedMeanwhile).toEqual([]);
      expect((await itemsOf(keyStoreTableName, carolKeyId)).map((item) => item.type).sort()).toEqual([
        'beacon:ACTIVE',
        'branch:ACTIVE',
        expect.stringMatching(/^branch:version:/),
      ]);
      expect(text(await one.cipher.decrypt(ciphertext, context))).toBe('carol’s');
    });

    it('creates a scope’s branch key once for all the first writes one process makes of it at once', async () => {
      // Prepare
      const keyStoreTableName = await store.newTable();
      const one = processOver(keyStoreTableName);
      const daveKeyId = await one.keys.keyIdOf(principal('dave'));
      const before = one.kms.sent.length;

      // Act
      const contexts = [1, 2, 3, 4].map(() => contextOf('acme', 'dave'));
      const ciphertexts = await Promise.all(
        contexts.map((context, index) => one.cipher.encrypt(bytes(`dave’s ${index}`), context)),
      );

      // Assess: one key made (no version left behind by a creation that lost), and every write under it
      const operations = one.kms.operations(before);
      expect(operations.filter((operation) => operation === 'ReEncrypt')).toHaveLength(1);
      expect(operations.filter((operation) => operation === 'GenerateDataKeyWithoutPlaintext')).toHaveLength(2);
      expect(await itemsOf(keyStoreTableName, daveKeyId)).toHaveLength(3);
      const read = await Promise.all(
        ciphertexts.map((ciphertext, index) => one.cipher.decrypt(ciphertext, contexts[index] as EncryptionContext)),
      );
      expect(read.map(text)).toEqual(['dave’s 0', 'dave’s 1', 'dave’s 2', 'dave’s 3']);
    });

    it('fails a write under a key KMS refuses to unwrap with that refusal, once, and makes no new key for it', async () => {
      // Prepare: alice's key exists; another process has read the naming key when KMS starts refusing
      const keyStoreTableName = await store.newTable();
      await processOver(keyStoreTableName).cipher.encrypt(bytes('earlier'), contextOf('acme', 'alice'));
      const later = processOver(keyStoreTableName);
      const aliceKeyId = await later.keys.keyIdOf(principal('alice'));
      const storedBefore = await itemsOf(keyStoreTableName, aliceKeyId);
      later.kms.play(() => ({ refuse: 'DisabledException' }));
      const before = later.kms.sent.length;

      // Act
      const refused = await failureOf(later.cipher.encrypt(bytes('now'), contextOf('acme', 'alice')));

      // Assess: KMS's own refusal, not a 503 (retrying will not help); no second attempt, no creation
      expect(refused).toMatchObject({ name: 'DisabledException' });
      expect(later.kms.operations(before)).toEqual(['Decrypt']);
      expect(await itemsOf(keyStoreTableName, aliceKeyId)).toEqual(storedBefore);
    });

    it('fails a scope’s first write with ServiceUnavailable when KMS is throttled unwrapping the key just made', async () => {
      // Prepare
      const keyStoreTableName = await store.newTable();
      const one = processOver(keyStoreTableName);
      const erinKeyId = await one.keys.keyIdOf(principal('erin'));
      one.kms.play((request) => (request.operation === 'Decrypt' ? { refuse: 'ThrottlingException' } : undefined));

      // Act
      const throttled = await failureOf(one.cipher.encrypt(bytes('erin’s'), contextOf('acme', 'erin')));

      // Assess: the key made, the write not
      expect(throttled).toBeInstanceOf(ServiceUnavailableError);
      expect(await itemsOf(keyStoreTableName, erinKeyId)).toHaveLength(3);
    });

    it('creates no key, and answers false, for a context naming no scope of its tenant or a scope whose key exists', async () => {
      // Prepare
      const keyStoreTableName = await store.newTable();
      const one = processOver(keyStoreTableName);
      const existing = contextOf('acme', 'alice');
      await one.cipher.encrypt(bytes('alice’s'), existing);
      const [kmsBefore, storedBefore] = [one.kms.sent.length, await store.items(keyStoreTableName)];

      // Act
      const outcomes = [
        await one.keys.createMissingKey(
          { tenant: 'acme', namespace: 't/globex/p/alice/note', recordId: newRecordId() },
          new Error('any failure'),
        ),
        // A failure that was not for want of the key: encrypting again would not help
        await one.keys.createMissingKey(existing, new Error('throttled')),
      ];

      // Assess
      expect(outcomes).toEqual([false, false]);
      expect(one.kms.operations(kmsBefore)).toEqual([]);
      expect(await store.items(keyStoreTableName)).toEqual(storedBefore);
    });

    it('refuses, at every use, a key that is not a KMS key ARN, with the key store’s reason', async () => {
      // Prepare
      const keys = new HierarchicalKeys({
        keyArn: 'alias/memory-hub',
        keyStore: { tableName: await store.newTable(), logicalName: 'scripted-branch-keys', client: store.client },
        kms: { config: localKmsClientConfig(keyFileBytes) },
        metrics: new RecordingMetrics(),
      });

      // Act
      const failures = [await failureOf(keys.materials()), await failureOf(keys.materials())];

      // Assess
      for (const failure of failures) {
        expect(failure?.message).toBe('alias/memory-hub must be a well-formed AWS KMS non-alias resource arn');
      }
    });
  });

  describe('The KMS client', () => {
    it('calls KMS in the key’s own region, under the user agent the key store spec asks for', async () => {
      // Prepare: AWS mode's configuration — no endpoint, no region: only the key ARN says where
      const kms = new ScriptedTransport(new LocalKms(keyFileBytes));
      const keys = new HierarchicalKeys({
        keyArn: 'arn:aws:kms:eu-west-2:111122223333:key/1a2b3c4d-0000-4000-8000-00000000acme',
        keyStore: { tableName: await store.newTable(), logicalName: 'scripted-branch-keys', client: store.client },
        kms: {
          config: {
            credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
            requestHandler: kms,
            maxAttempts: 1,
          },
        },
        metrics: new RecordingMetrics(),
      });

      // Act: the local KMS holds no such key, so the first write fails at its first call
      await failureOf(cipherOver(keys).encrypt(bytes('first'), contextOf('acme', 'alice')));

      // Assess
      expect(kms.sent[0]).toMatchObject({
        operation: 'GenerateDataKeyWithoutPlaintext',
        hostname: 'kms.eu-west-2.amazonaws.com',
        userAgent: expect.stringMatching(/(^| )aws-kms-hierarchy$/),
      });
    });

    it('is built without any KMS configuration, as AWS mode composes it', async () => {
      // Prepare
      const keys = new HierarchicalKeys({
        keyArn: ACME_KEY,
        keyStore: { tableName: await store.newTable(), logicalName: 'scripted-branch-keys', client: store.client },
        metrics: new RecordingMetrics(),
      });

      // Act
      const materials = await keys.materials();

      // Assess
      expect(typeof materials.getEncryptionMaterials).toBe('function');
    });
  });
});
