import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode } from '../../src-shared/crypto';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import type { Report } from '../../src-shared/verify/report';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { keyEntryFor } from '../evidence/test-support';
import { standardReceiptFile } from '../operations/import-test-support';

// PROTOCOL section 0 through the CLI: key files naming the real world's key ids (any DID method,
// opaque ids) and the typed signer's GET /pubkey answer work with `evroom verify --keys` and
// `evroom trust import/export/list/pin --from-file`; a bad id is a usage error (exit 2) that says
// what is wrong and changes nothing.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const PUBKEY_ANSWER = fileURLToPath(new URL('../../test-vectors/key-files/typed-signer-pubkey.json', import.meta.url));
const node = createNodeCryptoProvider();
const opaqueSeed = new Uint8Array(32).fill(0x31);
const hiveSeed = new Uint8Array(32).fill(0x32);
const OPAQUE = 'test-key-001';
const HIVE = 'did:hive:abc123';

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Listing {
  trusted: { key_id: string; algorithm: string; status: string; public_key: string }[];
}

function listing(home: string): Listing {
  const result = evroom(home, ['trust', 'list', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Listing;
}

function auditCount(home: string): number {
  return (JSON.parse(evroom(home, ['ledger', 'stats', '--json']).stdout) as { auditEntries: number }).auditEntries;
}

describe('evroom and key ids of any DID method or opaque ids', () => {
  let directory: string;
  let keys: string;
  let byOpaque: string;
  let byHive: string;
  const answer = JSON.parse(fs.readFileSync(PUBKEY_ANSWER, 'utf8')) as Record<string, unknown>;
  const answerKey = b64uEncode(Uint8Array.from(Buffer.from(answer['publicKey_b64'] as string, 'base64')));

  const write = (name: string, text: string): string => {
    const file = path.join(directory, name);
    fs.writeFileSync(file, text);
    return file;
  };

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-key-ids-'));
    keys = write(
      'keys.json',
      serializeKeyFile([keyEntryFor(OPAQUE, opaqueSeed, node), keyEntryFor(HIVE, hiveSeed, node)]),
    );
    byOpaque = write('opaque.json', new TextDecoder().decode(standardReceiptFile(1, opaqueSeed, OPAQUE, node).bytes));
    byHive = write('hive.json', new TextDecoder().decode(standardReceiptFile(2, hiveSeed, HIVE, node).bytes));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('verify --keys finds keys named test-key-001 and did:hive:..., beside the /pubkey answer', () => {
    const home = path.join(directory, 'home-verify');
    for (const [document, keyId] of [
      [byOpaque, OPAQUE],
      [byHive, HIVE],
    ] as const) {
      const result = evroom(home, [
        'verify',
        '--json',
        '--no-trust-store',
        '--keys',
        PUBKEY_ANSWER,
        '--keys',
        keys,
        document,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.status).toBe('PASS');
      expect(report.trust).toMatchObject({ status: 'unpinned', key_id: keyId });
    }
    // Without the key file the same document has no key: INDETERMINATE, not a usage error.
    const alone = evroom(home, ['verify', '--json', '--no-trust-store', '--keys', PUBKEY_ANSWER, byOpaque]);
    expect(alone.code).toBe(1);
    expect((JSON.parse(alone.stdout) as Report).status).toBe('INDETERMINATE');
  });

  it('trust import, list, export and pin --from-file keep the ids; pinned keys make the documents trusted', () => {
    const home = path.join(directory, 'home-trust');
    expect(evroom(home, ['trust', 'import', keys]).code).toBe(0);
    const imported = evroom(home, ['trust', 'import', PUBKEY_ANSWER]);
    expect(imported.code, imported.stderr).toBe(0);
    const trusted = listing(home).trusted.map((key) => [key.key_id, key.algorithm, key.status]);
    expect(trusted.sort()).toEqual(
      [
        ['did:hive:abc123', 'Ed25519', 'pinned'],
        ['did:hive:typed-demo', 'ML-DSA-65', 'pinned'],
        ['test-key-001', 'Ed25519', 'pinned'],
      ].sort(),
    );
    expect(listing(home).trusted.find((key) => key.key_id === 'did:hive:typed-demo')?.public_key).toBe(answerKey);
    const human = evroom(home, ['trust', 'list']);
    expect(human.stdout).toContain('did:hive:typed-demo');
    expect(human.stdout).toContain('test-key-001');
    // The 2,603-character ML-DSA-65 key is shown by its ends, size and SHA-256, not whole.
    expect(human.stdout).not.toContain(answerKey);
    expect(human.stdout).toContain(
      `${answerKey.slice(0, 24)}…${answerKey.slice(-8)} (1952 bytes, SHA-256 ${createHash('sha256')
        .update(Buffer.from(answerKey, 'base64url'))
        .digest('hex')})`,
    );

    const verified = evroom(home, ['verify', '--json', byOpaque]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout) as Report).toMatchObject({
      status: 'PASS',
      trust: { status: 'trusted', key_id: OPAQUE },
    });

    const exported = evroom(home, ['trust', 'export']);
    expect(exported.code, exported.stderr).toBe(0);
    const file = write('exported.json', exported.stdout);
    const again = path.join(directory, 'home-trust-again');
    expect(evroom(again, ['trust', 'import', file]).code).toBe(0);
    expect(
      listing(again)
        .trusted.map((key) => [key.key_id, key.public_key])
        .sort(),
    ).toEqual(
      listing(home)
        .trusted.map((key) => [key.key_id, key.public_key])
        .sort(),
    );

    // The /pubkey answer is one key: trust pin --from-file needs no --key-id.
    const single = path.join(directory, 'home-pin-from-file');
    const pinned = evroom(single, ['trust', 'pin', '--from-file', PUBKEY_ANSWER, '--label', 'Typed signer demo']);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(listing(single).trusted).toMatchObject([
      { key_id: 'did:hive:typed-demo', algorithm: 'ML-DSA-65', public_key: answerKey },
    ]);
  });

  it('refuses bad ids, a /pubkey answer whose encodings disagree and a key pair file: exit 2, clear words, nothing changed', () => {
    const home = path.join(directory, 'home-refusals');
    expect(evroom(home, ['trust', 'import', keys]).code).toBe(0);
    const before = { list: listing(home), audit: auditCount(home) };
    const entry = (keyId: unknown) =>
      serializeKeyFile([{ ...keyEntryFor(OPAQUE, opaqueSeed, node), key_id: 'placeholder' }]).replace(
        '"placeholder"',
        JSON.stringify(keyId),
      );
    const other = Buffer.from(answer['publicKey_b64'] as string, 'base64');
    other[7] = (other[7] ?? 0) ^ 0xff;
    const seed = new Uint8Array(32).fill(0x33);
    const cases: [string, string, RegExp][] = [
      ['space.json', entry('test key-001'), /must not contain spaces \(character 5 is a space\)/],
      ['control.json', entry('test\u0007key'), /character 5 is U\+0007, a control character/],
      ['long.json', entry('k'.repeat(257)), /at most 256 characters; this one has 257/],
      ['empty.json', entry(''), /must not be empty/],
      ['no-method.json', entry('did::typed-demo'), /method is empty/],
      [
        'disagree.json',
        JSON.stringify({ ...answer, publicKey_hex: other.toString('hex') }),
        /"publicKey_b64" and "publicKey_hex" are different keys/,
      ],
      [
        'keypair.json',
        JSON.stringify({
          privKeyB64u: b64uEncode(seed),
          pubKeyB64u: b64uEncode(node.ed25519PublicKey(seed)),
          note: 'Generated test keypair',
        }),
        /holds a private key \(member "privKeyB64u"\)/,
      ],
    ];
    for (const [name, text, reason] of cases) {
      const file = write(name, text);
      for (const args of [
        ['verify', '--json', '--no-trust-store', '--keys', file, byOpaque],
        ['verify', '--json', '--no-trust-store', '--trust', file, byOpaque],
        ['trust', 'import', file],
        ['trust', 'pin', '--from-file', file],
      ]) {
        const result = evroom(home, args);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr, args.join(' ')).toMatch(reason);
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(result.stderr).not.toContain('\u0007');
        expect(result.stdout).toBe('');
      }
    }
    expect({ list: listing(home), audit: auditCount(home) }).toEqual(before);
  }, 240_000);
});
