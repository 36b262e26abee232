import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, didKeyFromEd25519, utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();
const seedA = new Uint8Array(32).fill(71);
const seedB = new Uint8Array(32).fill(72);
const KEY_A = 'did:svc:acme:k1';
const KEY_B = didKeyFromEd25519(node.ed25519PublicKey(seedB));
const publicA = b64uEncode(node.ed25519PublicKey(seedA));

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Listing {
  trusted: { key_id: string; status: string; label?: string; public_key: string; revocation_reason?: string }[];
  advertised: { key_id: string; source: string }[];
}

function listing(home: string): Listing {
  const result = evroom(home, ['trust', 'list', '--json']);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Listing;
}

function auditCount(home: string): number {
  return (JSON.parse(evroom(home, ['ledger', 'stats', '--json']).stdout) as { auditEntries: number }).auditEntries;
}

describe('evroom trust', () => {
  let directory: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-trust-cli-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('pins, lists, revokes, unpins, each audited', () => {
    const home = path.join(directory, 'home-a');
    const pinned = evroom(home, [
      'trust',
      'pin',
      '--key-id',
      KEY_A,
      '--public-key',
      publicA,
      '--label',
      'Acme service key',
      '--not-after',
      '2030-01-01T00:00:00Z',
    ]);
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toContain(`Pinned ${KEY_A}`);
    expect(listing(home).trusted).toEqual([
      expect.objectContaining({ key_id: KEY_A, status: 'pinned', label: 'Acme service key', public_key: publicA }),
    ]);
    expect(evroom(home, ['trust', 'pin', '--key-id', KEY_A, '--public-key', publicA]).stdout).toContain(
      'nothing changed',
    );
    const human = evroom(home, ['trust', 'list']);
    expect(human.stdout).toMatch(/pinned\s+did:svc:acme:k1, Ed25519, “Acme service key”/);

    const revoked = evroom(home, ['trust', 'revoke', KEY_A, '--reason', 'key leaked']);
    expect(revoked.code).toBe(0);
    expect(listing(home).trusted[0]).toMatchObject({ status: 'revoked', revocation_reason: 'key leaked' });
    expect(evroom(home, ['trust', 'unpin', KEY_A]).code).toBe(0);
    expect(listing(home).trusted).toEqual([]);
    // pin, revoke, unpin: three audit rows, and the chain holds.
    expect(auditCount(home)).toBe(3);
    expect(evroom(home, ['ledger', 'check']).code).toBe(0);
  }, 240_000);

  it('refuses every bad argument with a specific error (exit 2) and changes nothing', () => {
    const home = path.join(directory, 'home-b');
    expect(evroom(home, ['trust', 'pin', '--key-id', KEY_A, '--public-key', publicA]).code).toBe(0);
    const before = { list: listing(home), audit: auditCount(home) };
    const cases: [string[], RegExp][] = [
      [
        ['trust', 'pin', '--key-id', 'acme key', '--public-key', publicA],
        /must not contain spaces[^\n]*invalid_key_id/,
      ],
      [['trust', 'pin', '--key-id', 'did::acme', '--public-key', publicA], /method is empty[^\n]*invalid_key_id/],
      [
        ['trust', 'pin', '--key-id', 'k'.repeat(257), '--public-key', publicA],
        /at most 256 characters; this one has 257[^\n]*invalid_key_id/,
      ],
      [
        ['trust', 'pin', '--key-id', 'k\u0007', '--public-key', publicA],
        /U\+0007, a control character[^\n]*invalid_key_id/,
      ],
      [['trust', 'pin', '--key-id', '', '--public-key', publicA], /key-id|invalid_key_id/],
      [['trust', 'pin', '--key-id', 'did:svc:x', '--public-key', 'AAAA'], /--public-key must be 32 bytes/],
      [['trust', 'pin', '--key-id', 'did:svc:x', '--public-key', publicA, '--algorithm', 'RSA'], /--algorithm must be/],
      [
        ['trust', 'pin', '--key-id', 'did:svc:x', '--public-key', publicA, '--not-after', 'tomorrow'],
        /invalid_timestamp/,
      ],
      [
        [
          'trust',
          'pin',
          '--key-id',
          'did:svc:x',
          '--public-key',
          publicA,
          '--not-before',
          '2030-01-01T00:00:00Z',
          '--not-after',
          '2029-01-01T00:00:00Z',
        ],
        /invalid_window/,
      ],
      [['trust', 'pin', '--key-id', KEY_A, '--public-key', b64uEncode(node.ed25519PublicKey(seedB))], /key_conflict/],
      [['trust', 'pin', '--key-id', KEY_A, '--public-key', publicA, '--label', 'Other'], /already_pinned/],
      [['trust', 'pin', '--key-id', 'did:svc:x'], /--public-key/],
      [['trust', 'pin'], /--key-id/],
      [['trust', 'unpin', 'did:svc:nobody'], /unknown_key/],
      [['trust', 'unpin'], /name the key id/],
      [['trust', 'revoke', 'did:svc:nobody'], /unknown_key/],
      [['trust', 'import', path.join(directory, 'missing.json')], /no such file/],
      [['trust', 'frobnicate'], /unknown subcommand/],
      [['trust'], /name a subcommand/],
    ];
    for (const [args, message] of cases) {
      const result = evroom(home, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect({ list: listing(home), audit: auditCount(home) }).toEqual(before);
  }, 240_000);

  it('pins a public key whose base64url starts with "-", given as the next argument or with =', () => {
    const home = path.join(directory, 'home-dash');
    // One key in 64 starts with "-" (first byte 0xf8..0xfb): search seeds until one does.
    const dashed: string[] = [];
    for (let fill = 0; fill < 256 && dashed.length < 2; fill += 1) {
      const encoded = b64uEncode(node.ed25519PublicKey(new Uint8Array(32).fill(fill)));
      if (encoded.startsWith('-')) dashed.push(encoded);
    }
    const [first, second] = dashed as [string, string];
    expect(first).toMatch(/^-/);
    expect(second).toMatch(/^-/);
    const pinned = evroom(home, ['trust', 'pin', '--key-id', 'did:svc:dash:k1', '--public-key', first]);
    expect(pinned.stderr).toBe('');
    expect(pinned.code).toBe(0);
    expect(evroom(home, ['trust', 'pin', '--key-id', 'did:svc:dash:k2', `--public-key=${second}`]).code).toBe(0);
    expect(listing(home).trusted.map((key) => [key.key_id, key.public_key])).toEqual([
      ['did:svc:dash:k1', first],
      ['did:svc:dash:k2', second],
    ]);
  }, 240_000);

  it('imports and exports key files, and pins from a key file', () => {
    const home = path.join(directory, 'home-c');
    const file = path.join(directory, 'keys.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        keys: [
          { key_id: KEY_A, algorithm: 'Ed25519', public_key: publicA, label: 'Acme', status: 'pinned' },
          {
            key_id: KEY_B,
            algorithm: 'Ed25519',
            public_key: b64uEncode(node.ed25519PublicKey(seedB)),
            status: 'revoked',
          },
        ],
      }),
    );
    const imported = evroom(home, ['trust', 'import', file]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('1 pinned, 1 revoked');
    const exported = evroom(home, ['trust', 'export']);
    expect(exported.code).toBe(0);
    const keys = (JSON.parse(exported.stdout) as { keys: { key_id: string; status: string; label?: string }[] }).keys;
    expect(keys.map((key) => [key.key_id, key.status, key.label])).toEqual(
      [
        [KEY_A, 'pinned', 'Acme'],
        [KEY_B, 'revoked', undefined],
      ].sort(),
    );
    const out = path.join(directory, 'export.json');
    expect(evroom(home, ['trust', 'export', '--out', out]).code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe(exported.stdout);
    expect(evroom(home, ['trust', 'export', '--out', out]).stderr).toContain('exists');

    const other = path.join(directory, 'home-d');
    const one = evroom(other, ['trust', 'pin', '--from-file', file, '--key-id', KEY_A, '--label', 'From the file']);
    expect(one.code).toBe(0);
    expect(listing(other).trusted).toEqual([expect.objectContaining({ key_id: KEY_A, label: 'From the file' })]);
    expect(evroom(other, ['trust', 'pin', '--from-file', file]).stderr).toContain('holds 2 keys');
    expect(evroom(other, ['trust', 'pin', '--from-file', file, '--key-id', KEY_B]).stderr).toContain('revoked');
  }, 240_000);

  it('lists keys advertised by an imported bundle apart from the trust store', () => {
    const home = path.join(directory, 'home-e');
    const signer = { seed: seedA, keyId: KEY_A };
    const parts = bundleParts([{ stem: 'r0', bytes: utf8Encode(signClassical({ sequence: 0 }, seedB, node)) }], {
      keyId: KEY_A,
      keys: [keyEntryFor(KEY_A, seedA, node)],
    });
    const bundle = path.join(directory, 'advertising.zip');
    fs.writeFileSync(bundle, zipBundle(parts, signer, node));
    expect(evroom(home, ['import', bundle]).code).toBe(0);
    const listed = listing(home);
    expect(listed.trusted).toEqual([]);
    expect(listed.advertised).toEqual([expect.objectContaining({ key_id: KEY_A, source: 'bundle:1' })]);
    expect(evroom(home, ['trust', 'list']).stdout).toMatch(
      /Advertised keys \(1\)[^\n]*\n\s+did:svc:acme:k1, Ed25519, from bundle:1/,
    );
  });

  it('pins a key for roles (--roles), lists and exports them, imports them from a key file, and verify judges by them', () => {
    const home = path.join(directory, 'home-roles');
    const receipt = path.join(directory, 'roles-receipt.json');
    // A classical receipt embeds its key and signs as the service (the issuer).
    fs.writeFileSync(receipt, signClassical({ sequence: 0 }, seedA, node));
    const trustOf = (where: string): { status: string; detail?: string } => {
      const verified = evroom(where, ['verify', receipt, '--json']);
      expect(verified.code).toBe(0);
      return (JSON.parse(verified.stdout) as { trust: { status: string; detail?: string } }).trust;
    };
    const pinned = evroom(home, [
      'trust',
      'pin',
      '--key-id',
      KEY_A,
      '--public-key',
      publicA,
      '--roles',
      'requester,operator',
    ]);
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toContain('for requester, operator only');
    expect(listing(home).trusted).toEqual([
      expect.objectContaining({ key_id: KEY_A, roles: ['requester', 'operator'] }),
    ]);
    expect(evroom(home, ['trust', 'list']).stdout).toMatch(
      /pinned\s+did:svc:acme:k1, Ed25519, for requester, operator only/,
    );
    // Used as the service, a key pinned for requester and operator only is not trusted.
    const outside = trustOf(home);
    expect(outside.status).toBe('unpinned');
    expect(outside.detail).toContain('pinned for requester, operator only');
    // Other roles for a pinned key are refused, naming both; nothing changes.
    const before = { list: listing(home), audit: auditCount(home) };
    const other = evroom(home, ['trust', 'pin', '--key-id', KEY_A, '--public-key', publicA, '--roles', 'service']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('for requester, operator, not for service only');
    expect(other.stderr).toContain('(already_pinned)');
    expect({ list: listing(home), audit: auditCount(home) }).toEqual(before);

    const exported = evroom(home, ['trust', 'export']);
    expect((JSON.parse(exported.stdout) as { keys: { roles?: string[] }[] }).keys[0]?.roles).toEqual([
      'requester',
      'operator',
    ]);
    // The export, edited to add the service, imports elsewhere with its roles; verify trusts it there.
    const file = path.join(directory, 'roles-keys.json');
    const edited = JSON.parse(exported.stdout) as { keys: { roles?: string[] }[] };
    (edited.keys[0] as { roles?: string[] }).roles = ['service', 'requester'];
    fs.writeFileSync(file, JSON.stringify(edited));
    const elsewhere = path.join(directory, 'home-roles-2');
    expect(evroom(elsewhere, ['trust', 'import', file]).code).toBe(0);
    expect(listing(elsewhere).trusted).toEqual([
      expect.objectContaining({ key_id: KEY_A, roles: ['requester', 'service'] }),
    ]);
    expect(trustOf(elsewhere).status).toBe('trusted');
    // Importing it where the key is stored with other roles refuses the whole file.
    const exportedAlready = { list: listing(home), audit: auditCount(home) };
    const refused = evroom(home, ['trust', 'import', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('(already_pinned)');
    expect({ list: listing(home), audit: auditCount(home) }).toEqual(exportedAlready);
  }, 240_000);

  it('refuses --roles that are not distinct role names before opening the ledger', () => {
    const home = path.join(directory, 'home-roles-bad');
    const cases: [string, RegExp][] = [
      ['signer', /"signer" is not a role; a role is one of requester, operator, service, auditor/],
      ['service,service', /The role service is given twice/],
      ['service,', /--roles takes role names separated by commas/],
      ['', /--roles needs a non-empty value/],
    ];
    for (const [roles, message] of cases) {
      const result = evroom(home, ['trust', 'pin', '--key-id', KEY_A, '--public-key', publicA, `--roles=${roles}`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    // Refused as usage errors: no data folder was even created.
    expect(fs.existsSync(home)).toBe(false);
  }, 240_000);
});
