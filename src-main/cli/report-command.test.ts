import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { REPORT_SECTIONS, type SignedReport } from '../../src-shared/formats/report';
import type { JsonObject } from '../../src-shared/verify/fields';
import { signRuleD1 } from '../../src-shared/verify/signature';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';
import { AUDITOR_KEY_PATH } from '../report/auditor-key';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(71);
const bundleSeed = new Uint8Array(32).fill(72);
/** Enough receipts for the PDF's receipts table to continue over several pages. */
const RECEIPTS = 150;

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function verifyJson(
  home: string,
  file: string,
): {
  code: number | null;
  report: { status: string; checks: { id: string; status: string }[]; errors: { code: string }[] };
} {
  const result = evroom(home, ['verify', '--json', file]);
  return { code: result.code, report: JSON.parse(result.stdout.trim().split('\n')[0] ?? '{}') as never };
}

describe('evroom report', () => {
  let directory: string;
  let home: string;
  let report: SignedReport;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-report-cli-'));
    home = path.join(directory, 'home');
    const receipts = Array.from({ length: RECEIPTS }, (_, index) => ({
      stem: `r${index}`,
      bytes: utf8Encode(signClassical({ sequence: index }, issuerSeed, node)),
    }));
    const parts = bundleParts(receipts, {
      keyId: 'did:svc:acme:bundler',
      keys: [keyEntryFor('did:svc:acme:bundler', bundleSeed, node)],
    });
    fs.writeFileSync(
      path.join(directory, 'bundle.zip'),
      zipBundle(parts, { seed: bundleSeed, keyId: 'did:svc:acme:bundler' }, node),
    );
    expect(evroom(home, ['import', path.join(directory, 'bundle.zip')]).code).toBe(0);
    const made = evroom(home, [
      'report',
      '--json',
      '--out',
      path.join(directory, 'r.json'),
      '--out',
      path.join(directory, 'r.html'),
      '--out',
      path.join(directory, 'r.pdf'),
    ]);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect((JSON.parse(made.stdout) as { files: unknown[] }).files).toHaveLength(3);
    report = JSON.parse(fs.readFileSync(path.join(directory, 'r.json'), 'utf8')) as SignedReport;
  }, 60_000);
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('writes JSON and HTML that verify, with every section', () => {
    for (const file of ['r.json', 'r.html']) {
      const { code, report: verification } = verifyJson(home, path.join(directory, file));
      expect(verification.status).toBe('PASS');
      expect(code).toBe(0);
    }
    expect(report.receipts).toHaveLength(RECEIPTS);
    const html = fs.readFileSync(path.join(directory, 'r.html'), 'utf8');
    for (const [id, title] of REPORT_SECTIONS) expect(html).toContain(`<section id="${id}"><h2>${title}</h2>`);
    expect(html).toContain('<script type="application/json" id="evroom-report">');
    expect(html).not.toMatch(/<script(?! type="application\/json")/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('refuses a count that disagrees with the rows even when re-signed by the auditor key', () => {
    const keyFile = JSON.parse(fs.readFileSync(path.join(home, AUDITOR_KEY_PATH), 'utf8')) as { seed: string };
    const tampered = JSON.parse(JSON.stringify(report)) as SignedReport;
    tampered.counts.by_status.PASS = RECEIPTS + 1;
    const resigned = signRuleD1(tampered as unknown as JsonObject, b64uDecode(keyFile.seed), node);
    const file = path.join(directory, 'count.json');
    fs.writeFileSync(file, JSON.stringify(resigned));
    const { code, report: verification } = verifyJson(home, file);
    expect(verification.status).toBe('MISMATCH');
    expect(verification.checks.find((check) => check.id === 'counts')?.status).toBe('fail');
    expect(verification.checks.find((check) => check.id === 'signature')?.status).toBe('pass');
    expect(verification.errors.map((error) => error.code)).toContain('count_mismatch');
    expect(code).toBe(1);
  });

  it('refuses a changed row and a changed count (digest)', () => {
    const row = JSON.parse(JSON.stringify(report)) as SignedReport;
    if (row.receipts[3]) row.receipts[3].status = 'INVALID';
    fs.writeFileSync(path.join(directory, 'row.json'), JSON.stringify(row));
    const rowCheck = verifyJson(home, path.join(directory, 'row.json'));
    expect(rowCheck.report.status).toBe('MISMATCH');
    expect(rowCheck.report.errors.map((error) => error.code)).toEqual(
      expect.arrayContaining(['digest_mismatch', 'count_mismatch']),
    );
    expect(rowCheck.code).toBe(1);
    const count = JSON.parse(JSON.stringify(report)) as SignedReport;
    count.counts.by_trust.unpinned = 0;
    fs.writeFileSync(path.join(directory, 'count2.json'), JSON.stringify(count));
    expect(verifyJson(home, path.join(directory, 'count2.json')).report.status).toBe('MISMATCH');
  });

  it('a signer key id with a space is MALFORMED, said at /signer/key_id', () => {
    const spaced = JSON.parse(JSON.stringify(report)) as SignedReport & { signer: { key_id: string } };
    spaced.signer.key_id = 'auditor key';
    fs.writeFileSync(path.join(directory, 'spaced.json'), JSON.stringify(spaced));
    const { report: verification } = verifyJson(home, path.join(directory, 'spaced.json'));
    expect(verification.status).toBe('MALFORMED');
    expect(verification.errors).toContainEqual(
      expect.objectContaining({ path: '/signer/key_id', message: expect.stringContaining('must not contain spaces') }),
    );
  });

  it('refuses an HTML page whose embedded JSON or visible table changed by one byte', () => {
    const html = fs.readFileSync(path.join(directory, 'r.html'), 'utf8');
    const start = html.indexOf('id="evroom-report">') + 'id="evroom-report">'.length;
    const at = html.indexOf('"receipts":[', start) + 40;
    const flipped = `${html.slice(0, at)}${html[at] === 'a' ? 'b' : 'a'}${html.slice(at + 1)}`;
    fs.writeFileSync(path.join(directory, 'json-byte.html'), flipped);
    const embedded = verifyJson(home, path.join(directory, 'json-byte.html'));
    expect(embedded.report.status).not.toBe('PASS');
    expect(embedded.code).toBe(1);
    // A cell edited in the visible table while the embedded JSON stays intact.
    const cell = html.indexOf('<td class="s-PASS">PASS</td>');
    const edited = `${html.slice(0, cell)}<td class="s-PASS">FAIL</td>${html.slice(cell + '<td class="s-PASS">PASS</td>'.length)}`;
    fs.writeFileSync(path.join(directory, 'table.html'), edited);
    const table = verifyJson(home, path.join(directory, 'table.html'));
    expect(table.report.status).toBe('MISMATCH');
    expect(table.report.checks.find((check) => check.id === 'html_rendering')?.status).toBe('fail');
    expect(table.report.checks.find((check) => check.id === 'signature')?.status).toBe('pass');
    // No embedded report at all.
    fs.writeFileSync(path.join(directory, 'none.html'), '<!DOCTYPE html><html><body>hello</body></html>');
    expect(verifyJson(home, path.join(directory, 'none.html')).report.status).toBe('MALFORMED');
  });

  it('writes a PDF whose every page carries the payload_sha256, with the counts and every section', () => {
    const result = spawnSync('pdftotext', ['-layout', path.join(directory, 'r.pdf'), '-'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const pages = result.stdout.split('\f').filter((page) => page.trim() !== '');
    expect(pages.length).toBeGreaterThan(2);
    pages.forEach((page, index) => {
      expect(page).toContain(report.payload_sha256);
      expect(page).toContain(`page ${index + 1}`);
    });
    const text = pages.join('\n');
    for (const [, title] of REPORT_SECTIONS) expect(text).toContain(title);
    expect(text).toMatch(new RegExp(`PASS\\s+${RECEIPTS}`));
    expect(text).toMatch(new RegExp(`unpinned\\s+${RECEIPTS}`));
    // The table continues: every receipt's hash is in the text.
    for (const row of report.receipts) expect(text).toContain(row.receipt_sha256);
  });

  it('diffs two reports as JSON, and refuses one that does not verify', () => {
    const trusted = evroom(home, [
      'trust',
      'pin',
      '--key-id',
      'did:svc:acme:issuer',
      '--public-key',
      Buffer.from(node.ed25519PublicKey(issuerSeed)).toString('base64url'),
    ]);
    expect(trusted.code).toBe(0);
    const second = evroom(home, ['report', '--out', path.join(directory, 'r2.json')]);
    expect(second.code).toBe(0);
    const diff = evroom(home, [
      'report',
      'diff',
      path.join(directory, 'r.json'),
      path.join(directory, 'r2.json'),
      '--json',
    ]);
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(0);
    const parsed = JSON.parse(diff.stdout) as {
      added: string[];
      removed: string[];
      changed: { field: string; from: string; to: string; reason: string }[];
    };
    expect(parsed.added).toEqual([]);
    expect(parsed.removed).toEqual([]);
    expect(parsed.changed).toHaveLength(RECEIPTS);
    expect(parsed.changed[0]).toMatchObject({ field: 'trust', from: 'unpinned', to: 'trusted' });
    expect(parsed.changed[0]?.reason).toMatch(/^pinned/);
    const refused = evroom(home, ['report', 'diff', path.join(directory, 'r.json'), path.join(directory, 'row.json')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/does not verify as an audit report: MISMATCH .*\(invalid_report\)/);
  });

  it('refuses bad arguments with one line and writes nothing', () => {
    const cases: [string[], RegExp][] = [
      [['report'], /name the file\(s\) to write with --out/],
      [['report', '--out', path.join(directory, 'x.txt')], /must end in \.json, \.html or \.pdf/],
      [['report', '--as-of', 'soon', '--out', path.join(directory, 'x.json')], /--as-of must be a date/],
      [['report', '--out', path.join(directory, 'r.json')], /exists; choose another name/],
      [['report', 'diff', path.join(directory, 'r.json')], /name two report files/],
      [
        ['report', '--out', path.join(directory, 'no-such-folder', 'x.json')],
        /cannot be written: its folder does not exist.*\(out_unwritable\)/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = evroom(home, args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(fs.existsSync(path.join(directory, 'x.json'))).toBe(false);
    // Nothing was kept for the refused runs: the three reports made above only.
    expect(fs.readdirSync(path.join(home, 'reports'))).toHaveLength(2);
  });
});
