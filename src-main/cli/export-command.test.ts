import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { signEnvelope } from '../../src-shared/formats/envelope';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { SIGNING_KEY_PATH } from '../evidence/signing-key';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();
const signer = { seed: new Uint8Array(32).fill(51), keyId: 'did:svc:acme:bundles' };
const issuerSeed = new Uint8Array(32).fill(52);
const ISSUER = 'did:svc:acme:issuer';
// One key, one role (PROTOCOL section 4): the requester and the operator have keys of their own.
const requesterSeed = new Uint8Array(32).fill(53);
const operatorSeed = new Uint8Array(32).fill(54);

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function stats(home: string): {
  receipts: number;
  byFormat: Record<string, number>;
  byStatus: Record<string, number>;
  byTrust: Record<string, number>;
} {
  const result = evroom(home, ['ledger', 'stats', '--json']);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ReturnType<typeof stats>;
}

describe('evroom export', () => {
  let directory: string;
  let home: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-export-cli-'));
    home = path.join(directory, 'home');
    const envelopes = Array.from({ length: 5 }, (_, index) => {
      const signed = signEnvelope(
        { v: 'svc-receipt-v1', receipt_id: `rcp_E${index}`, issued_at: `2026-11-0${index + 1}T10:00:00Z` },
        {
          requester: { key_id: 'did:svc:acme:requester', seed: requesterSeed },
          operator: { key_id: 'did:svc:acme:operator', seed: operatorSeed },
          service: { key_id: ISSUER, seed: issuerSeed },
        },
        node,
      );
      return { stem: `rcp_E${index}`, bytes: utf8Encode(JSON.stringify(signed)) };
    });
    const parts = bundleParts(envelopes, {
      keyId: signer.keyId,
      keys: [
        keyEntryFor(ISSUER, issuerSeed, node),
        keyEntryFor('did:svc:acme:requester', requesterSeed, node),
        keyEntryFor('did:svc:acme:operator', operatorSeed, node),
        keyEntryFor(signer.keyId, signer.seed, node),
      ],
    });
    parts.files.set('receipts/classical.json', utf8Encode(signClassical({ sequence: 1 }, issuerSeed, node)));
    parts.manifest.counts = { receipts: 6 };
    const bundle = path.join(directory, 'source.zip');
    fs.writeFileSync(bundle, zipBundle(parts, signer, node));
    expect(evroom(home, ['import', bundle]).code).toBe(0);
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('exports everything; another machine imports it with zero findings (exit 0)', () => {
    const out = path.join(directory, 'all.zip');
    const result = evroom(home, ['export', '--out', out, '--tenant', 'acme']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Exported 6 receipts to');
    expect(result.stdout).toMatch(/signed by {2}did:key:z6Mk\S+ \(a new local signing key/);
    const keyFile = path.join(home, SIGNING_KEY_PATH);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(result.stdout).not.toContain(
      (JSON.parse(fs.readFileSync(keyFile, 'utf8')) as { seed_b64u: string }).seed_b64u,
    );

    const elsewhere = path.join(directory, 'elsewhere');
    const back = evroom(elsewhere, ['import', '--json', out]);
    expect(back.code, back.stdout.slice(0, 3000) + back.stderr).toBe(0);
    const imported = JSON.parse(back.stdout) as {
      totalFindings: number;
      signature: { status: string; trust: { status: string } };
      bundle: { tenant_id: string };
    };
    expect(imported).toMatchObject({
      totalFindings: 0,
      signature: { status: 'valid', trust: { status: 'unpinned' } },
      bundle: { tenant_id: 'acme' },
    });
    const source = stats(home);
    const target = stats(elsewhere);
    expect([target.receipts, target.byFormat, target.byStatus, target.byTrust]).toEqual([
      source.receipts,
      source.byFormat,
      source.byStatus,
      source.byTrust,
    ]);
  });

  it('exports a filtered selection as JSON, and refuses bad arguments with nothing written (exit 2)', () => {
    const out = path.join(directory, 'early.zip');
    const result = evroom(home, [
      'export',
      '--format',
      'envelope/svc-receipt-v1',
      '--from',
      '2026-11-02',
      '--to',
      '2026-11-04',
      '--out',
      out,
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ receipts: 2, keyCreated: false, tenant_id: 'local' });

    const bad = path.join(directory, 'bad.zip');
    for (const args of [
      ['--status', 'NOPE'],
      ['--trust', 'maybe'],
      ['--from', '2026-13-01'],
      ['--from', '2026-11-05', '--to', '2026-11-01'],
      // Before 1970 the ledger has no instant: refused here, not as an internal error below.
      ['--from', '0000-01-01'],
      ['--to', '1969-12-31T23:59:59Z'],
      ['--tenant', 'a\u0001b'],
      ['stray'],
    ]) {
      const refused = evroom(home, ['export', ...args, '--out', bad]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(/^evroom: export: /);
      expect(refused.stderr).not.toContain('internal');
    }
    expect(evroom(home, ['export']).stderr).toContain('--out');
    expect(fs.existsSync(bad)).toBe(false);

    const exists = evroom(home, ['export', '--out', out]);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain('exists');
    expect(evroom(home, ['export', '--out', out, '--force']).code).toBe(0);
  }, 240_000);
});
