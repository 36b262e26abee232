import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';
import { LEDGER_FILE_NAME } from '../ledger/index';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();
const signer = { seed: new Uint8Array(32).fill(61), keyId: 'did:svc:acme:bundles' };
const seed = new Uint8Array(32).fill(62);

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Row {
  id: number;
  receipt_sha256: string;
  status: string;
}

describe('evroom ledger', () => {
  let directory: string;
  let home: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-ledger-cli-'));
    home = path.join(directory, 'home');
    const receipts = Array.from({ length: 7 }, (_, index) => ({
      stem: `r${index}`,
      bytes: utf8Encode(signClassical({ sequence: index }, seed, node)),
    }));
    // One receipt altered after signing: MISMATCH in the ledger.
    receipts.push({
      stem: 'altered',
      bytes: utf8Encode(Buffer.from(receipts[0]!.bytes).toString('utf8').replace('"sequence":0', '"sequence":9')),
    });
    const parts = bundleParts(receipts, { keyId: signer.keyId, keys: [keyEntryFor(signer.keyId, signer.seed, node)] });
    const bundle = path.join(directory, 'b.zip');
    fs.writeFileSync(bundle, zipBundle(parts, signer, node));
    expect(evroom(home, ['import', bundle]).code).toBe(1);
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('stats --json: receipts is the number of distinct receipts', () => {
    const result = evroom(home, ['ledger', 'stats', '--json']);
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout) as { receipts: number; byStatus: Record<string, number>; bundles: number };
    expect(stats).toMatchObject({ receipts: 8, bundles: 1 });
    expect(stats.byStatus.PASS).toBe(7);
    const human = evroom(home, ['ledger', 'stats']);
    expect(human.stdout).toMatch(/receipts\s+8/);
  });

  it('files the altered receipt as unattributed: counted apart, listed by --trust unattributed (PROTOCOL 1)', () => {
    const stats = JSON.parse(evroom(home, ['ledger', 'stats', '--json']).stdout) as {
      byTrust: Record<string, number>;
    };
    expect(stats.byTrust).toEqual({ unpinned: 7, unattributed: 1 });
    const listed = JSON.parse(evroom(home, ['ledger', 'list', '--json', '--trust', 'unattributed']).stdout) as {
      rows: (Row & { trust: string })[];
    };
    expect(listed.rows.map((row) => [row.status, row.trust])).toEqual([['MISMATCH', 'unattributed']]);
    const help = evroom(home, ['ledger', 'list', '--trust', 'nonsense']);
    expect(help.code).toBe(2);
    expect(help.stderr).toContain('unattributed');
  });

  it('list pages with --limit and --after, filters, and shows a receipt by row id, hash or error', () => {
    const first = evroom(home, ['ledger', 'list', '--json', '--limit', '5', '--sort', 'imported_at', '--asc']);
    expect(first.code).toBe(0);
    const page1 = JSON.parse(first.stdout) as { rows: Row[]; nextCursor: string };
    expect(page1.rows.map((row) => row.id)).toEqual([1, 2, 3, 4, 5]);
    const second = JSON.parse(
      evroom(home, [
        'ledger',
        'list',
        '--json',
        '--limit',
        '5',
        '--sort',
        'imported_at',
        '--asc',
        '--after',
        page1.nextCursor,
      ]).stdout,
    ) as { rows: Row[]; nextCursor: string | null };
    expect(second.rows.map((row) => row.id)).toEqual([6, 7, 8]);
    expect(second.nextCursor).toBeNull();
    const bad = JSON.parse(evroom(home, ['ledger', 'list', '--json', '--status', 'mismatch']).stdout) as {
      rows: Row[];
    };
    expect(bad.rows.map((row) => row.status)).toEqual(['MISMATCH']);
    const human = evroom(home, ['ledger', 'list', '--limit', '2']);
    expect(human.stdout.split('\n')[0]).toMatch(/^id\s+issued\s+status\s+trust\s+format/);
    expect(human.stdout).toContain('More: --after ');

    const shown = evroom(home, ['ledger', 'show', String(bad.rows[0]!.id)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('MISMATCH');
    expect(shown.stdout).toMatch(/- bundle 1 /);
    const byHash = JSON.parse(evroom(home, ['ledger', 'show', '--json', page1.rows[0]!.receipt_sha256]).stdout) as {
      receipt: { id: number };
      report: { status: string };
      document: string;
    };
    expect(byHash).toMatchObject({ receipt: { id: 1 }, report: { status: 'PASS' } });
    expect(JSON.parse(byHash.document)).toHaveProperty('signed_payload');

    for (const args of [
      ['ledger', 'show', '999'],
      ['ledger', 'show'],
      ['ledger', 'list', '--after', 'garbage'],
      ['ledger', 'list', '--limit', '0'],
      ['ledger', 'list', '--sort', 'color'],
      ['ledger', 'frobnicate'],
      ['ledger'],
    ]) {
      const result = evroom(home, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^evroom: ledger/);
    }
  }, 240_000);

  it('check: exit 0 while the audit chain holds, 1 once a row is altered', () => {
    const ok = evroom(home, ['ledger', 'check']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('the hash chain holds');
    // Tamper with the file as an attacker with write access would: the triggers do not stop
    // someone who drops them, the chain still shows it.
    const database = new BetterSqlite3(path.join(home, LEDGER_FILE_NAME));
    try {
      database.exec("DROP TRIGGER audit_log_no_update; UPDATE audit_log SET subject = 'forged' WHERE id = 1;");
    } finally {
      database.close();
    }
    const broken = evroom(home, ['ledger', 'check', '--json']);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({ ok: false, firstBadId: 1 });
    expect(evroom(home, ['ledger', 'check']).stdout).toContain('broken at row 1');
  });
});
