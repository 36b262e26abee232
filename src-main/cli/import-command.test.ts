import { spawn, spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { createPrivateKey, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';
import { countReceipts, getBundle, LEDGER_FILE_NAME, openLedgerReadOnly } from '../ledger/index';
import { createProgressBar, rateText } from './commands/import';

// The CLI as a user runs it: a real process, real zips, a real ledger under EVROOM_HOME.
const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();
const signer = { seed: new Uint8Array(32).fill(41), keyId: 'did:svc:acme:bundles' };
const receiptSeed = new Uint8Array(32).fill(42);

/** The node provider with one cached key pair, to make thousands of receipts quickly. */
function fastSigner(seed: Uint8Array): CryptoProvider {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seed)]);
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const publicKey = node.ed25519PublicKey(seed);
  return {
    ...node,
    ed25519Sign: (message) => new Uint8Array(sign(null, message, privateKey)),
    ed25519PublicKey: () => publicKey,
  };
}

function makeBundle(count: number, options: { extra?: boolean } = {}): Buffer {
  const fast = fastSigner(receiptSeed);
  const receipts = Array.from({ length: count }, (_, index) => ({
    stem: `r${index}`,
    bytes: utf8Encode(signClassical({ sequence: index, memo: 'import test' }, receiptSeed, fast)),
  }));
  const parts = bundleParts(receipts, { keyId: signer.keyId, keys: [keyEntryFor(signer.keyId, signer.seed, node)] });
  if (options.extra === true) parts.unlisted.set('receipts/unlisted.json', receipts[0]!.bytes);
  return zipBundle(parts, signer, node);
}

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function stats(home: string): Record<string, unknown> {
  const result = evroom(home, ['ledger', 'stats', '--json']);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('evroom import', () => {
  let directory: string;
  let clean: string;
  let withFindings: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-import-cli-'));
    clean = path.join(directory, 'clean.zip');
    fs.writeFileSync(clean, makeBundle(30));
    withFindings = path.join(directory, 'findings.zip');
    fs.writeFileSync(withFindings, makeBundle(10, { extra: true }));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('imports a clean bundle (exit 0), then again without duplicates', () => {
    const home = path.join(directory, 'home-clean');
    const first = evroom(home, ['import', clean]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Result: imported clean.');
    expect(first.stdout).toContain('trust unpinned');
    expect(first.stdout).toContain('30 read: 30 new');
    expect(first.stderr).toBe('');
    const second = evroom(home, ['import', '--json', clean]);
    expect(second.code).toBe(0);
    const result = JSON.parse(second.stdout) as {
      status: string;
      alreadyImported: boolean;
      counts: { receiptsNew: number };
    };
    expect(result).toMatchObject({ status: 'imported', alreadyImported: true, counts: { receiptsNew: 0 } });
    expect(stats(home)).toMatchObject({ receipts: 30, bundles: 1 });
    // The data folder is private.
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
  });

  it('imports a bundle with findings (exit 1) and lists each one', () => {
    const home = path.join(directory, 'home-findings');
    const result = evroom(home, ['import', withFindings]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/file_extra\s+receipts\/unlisted\.json/);
    expect(result.stdout).toContain('Result: imported with 1 finding.');
    const json = evroom(home, ['import', '--json', withFindings]);
    expect(json.code).toBe(1);
    expect(
      (JSON.parse(json.stdout) as { findings: { code: string }[] }).findings.map((finding) => finding.code),
    ).toEqual(['file_extra']);
  });

  it('refuses a hostile zip with a named error (exit 2) and writes nothing', () => {
    const home = path.join(directory, 'home-refused');
    expect(evroom(home, ['import', clean]).code).toBe(0);
    const before = stats(home);
    const hostile = path.join(directory, 'hostile.zip');
    const parts = bundleParts([], { keyId: signer.keyId });
    fs.writeFileSync(
      hostile,
      zipBundle(parts, signer, node, { extra: [{ name: '../../outside.json', data: utf8Encode('{}') }] }),
    );
    const result = evroom(home, ['import', hostile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^evroom: import: refused, nothing was written: zip_path_traversal \(entry \.\.\/\.\.\/outside\.json\)/,
    );
    const json = evroom(home, ['import', '--json', hostile]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'refused',
      error: { code: 'zip_path_traversal', details: [{ path: '../../outside.json', message: expect.any(String) }] },
    });
    // The limits are flags: 30 receipts and 3 more files are over --max-entries 10.
    const limited = evroom(home, ['import', '--max-entries', '10', clean]);
    expect(limited.code).toBe(2);
    expect(limited.stderr).toContain('zip_too_many_entries');
    expect(stats(home)).toEqual(before);
  }, 240_000);

  it('gives bad arguments a specific error (exit 2)', () => {
    const home = path.join(directory, 'home-usage');
    expect(evroom(home, ['import']).stderr).toContain('name the bundle zip');
    const missing = evroom(home, ['import', path.join(directory, 'nope.zip')]);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toContain('no such file');
    for (const args of [
      ['--max-ratio', '0'],
      ['--max-bytes', '12X'],
      ['--max-entries', '-1'],
      ['--workers', '0'],
      ['--batch-size', 'many'],
      ['--frobnicate'],
    ]) {
      const result = evroom(home, ['import', ...args, clean]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^evroom: import: /);
    }
    expect(fs.existsSync(path.join(home, LEDGER_FILE_NAME))).toBe(false);
  }, 240_000);

  it('survives kill -9 mid-import: a re-run finishes the bundle with nothing lost or duplicated', async () => {
    const count = 6000;
    const bundle = path.join(directory, 'crash.zip');
    fs.writeFileSync(bundle, makeBundle(count));
    const home = path.join(directory, 'home-crash');
    const file = path.join(home, LEDGER_FILE_NAME);
    const child = spawn(process.execPath, [BIN, 'import', '--batch-size', '200', '--workers', '1', bundle], {
      env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
      stdio: 'ignore',
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    // Watch the ledger with a read-only connection; kill the importer once a batch has landed.
    let seen = 0;
    const deadline = Date.now() + 120_000;
    while (seen === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      try {
        const reader = openLedgerReadOnly(file);
        try {
          seen = countReceipts(reader.readable);
        } finally {
          reader.close();
        }
      } catch {
        // Not created or not migrated yet.
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(process.kill(child.pid as number, 'SIGKILL')).toBe(true);
    expect((await exited).signal).toBe('SIGKILL');

    const reader = openLedgerReadOnly(file);
    try {
      const stored = countReceipts(reader.readable);
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan(count);
      // Whole batches only.
      expect(stored % 200).toBe(0);
      expect(getBundle(reader.readable, 1)?.status).toBe('partial');
    } finally {
      reader.close();
    }

    const rerun = evroom(home, ['import', '--json', bundle]);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ resumed: true, clean: true, counts: { receipts: count } });
    const reference = path.join(directory, 'home-reference');
    expect(evroom(reference, ['import', bundle]).code).toBe(0);
    const { auditEntries: _a, ...crashed } = stats(home);
    const { auditEntries: _b, ...expected } = stats(reference);
    expect(crashed).toEqual(expected);
    expect(crashed).toMatchObject({ receipts: count, bundles: 1 });
    const after = openLedgerReadOnly(file);
    try {
      // Every receipt has the bundle as its source exactly once.
      expect(countReceipts(after.readable, { source: { kind: 'bundle', ref: '1' } })).toBe(count);
      expect(getBundle(after.readable, 1)?.status).toBe('complete');
    } finally {
      after.close();
    }
    expect(evroom(home, ['ledger', 'check']).code).toBe(0);
  }, 300_000);
});

describe('the progress bar', () => {
  function terminalWith(interactive: boolean): {
    terminal: Parameters<typeof createProgressBar>[0];
    written: () => string;
  } {
    const err = new PassThrough();
    const chunks: Buffer[] = [];
    err.on('data', (chunk: Buffer) => chunks.push(chunk));
    return {
      terminal: { out: new PassThrough(), err, color: false, interactive },
      written: () => Buffer.concat(chunks).toString('utf8'),
    };
  }

  it('draws one line on an interactive stderr and clears it', async () => {
    const { terminal, written } = terminalWith(true);
    const bar = createProgressBar(terminal);
    bar.draw(0.5, `verifying 50/100 receipts  ${rateText(9800, 6)}`);
    bar.clear();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toBe(
      `\r\u001b[2K${'█'.repeat(12)}${'░'.repeat(12)}  50%  verifying 50/100 receipts  9,800/s · 6 s left\r\u001b[2K`,
    );
  });

  it('draws nothing when stderr is not a terminal', async () => {
    const { terminal, written } = terminalWith(false);
    const bar = createProgressBar(terminal);
    bar.draw(0.5, 'x');
    bar.clear();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toBe('');
    expect(rateText(0, null)).toBe('');
    expect(rateText(120, 600)).toBe('120/s · 10 min left');
  });
});
