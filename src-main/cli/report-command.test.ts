import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { inflateSync } from 'node:zlib';
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
import { MIN_FONT_SIZE, writeReportPdf } from '../report/pdf';

/** Every font size a PDF's content streams set (`/F1 8 Tf`), read from its inflated streams. */
function pdfFontSizes(pdf: Buffer): number[] {
  const sizes: number[] = [];
  const text = pdf.toString('latin1');
  const pattern = /\/Length (\d+)[^]*?>>\s*stream\r?\n/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const start = match.index + match[0].length;
    let content: string;
    try {
      content = inflateSync(pdf.subarray(start, start + Number(match[1]))).toString('latin1');
    } catch {
      continue;
    }
    for (const tf of content.matchAll(/\/F\d+ ([\d.]+) Tf/g)) sizes.push(Number(tf[1]));
  }
  return sizes;
}

async function writePdfFile(report: SignedReport, json: string, file: string): Promise<void> {
  const out = fs.createWriteStream(file);
  const closed = new Promise<void>((resolve) => out.on('close', () => resolve()));
  await writeReportPdf(report, json, out);
  await closed;
}

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

  it('puts the verdict summary first in the HTML and the PDF, and names bundles by their file', () => {
    const html = fs.readFileSync(path.join(directory, 'r.html'), 'utf8');
    const verdict = html.indexOf('<section id="verdict"><h2>Verdict</h2>');
    expect(verdict).toBeGreaterThan(0);
    expect(verdict).toBeLessThan(html.indexOf('<section id="scope">'));
    expect(html).toContain(
      `<div class="verdict v-warn" data-verdict="warn"><p class="headline"><span class="icon" aria-hidden="true">⚠</span>Every receipt is PASS and every bundle intact, but ${RECEIPTS} of ${RECEIPTS} receipts are not from a trusted issuer.</p>`,
    );
    expect(html).toContain(`<dt>by trust</dt><dd>${RECEIPTS} unpinned · 0 unattributed</dd>`);
    expect(html).toContain('<dt>bundles</dt><dd>0 altered · 0 unverified · 1 intact: bundle.zip intact</dd>');
    expect(html).toContain(`<dt>anchoring (as recorded)</dt><dd>none of the ${RECEIPTS} receipts is anchored</dd>`);
    expect(html).toContain('<td>bundle.zip</td><td class="b-intact">intact</td>');
    // The unattributed sentence is among the claim limits of every form.
    expect(html).toMatch(/<li>A receipt whose status is MISMATCH or INVALID is unattributed:/);
    const text = spawnSync('pdftotext', ['-layout', '-l', '1', path.join(directory, 'r.pdf'), '-'], {
      encoding: 'utf8',
    }).stdout;
    const first = text.indexOf('Verdict');
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(text.indexOf('Scope'));
    expect(text).toMatch(
      /⚠ Every receipt is PASS and every bundle intact, but 150 of 150 receipts are not from a\s+trusted issuer\./,
    );
    expect(text).toMatch(/by trust: 150 unpinned · 0 unattributed/);
    expect(text).toMatch(/bundles: 0 altered · 0 unverified · 1 intact: bundle\.zip intact/);
    const all = spawnSync('pdftotext', ['-layout', path.join(directory, 'r.pdf'), '-'], { encoding: 'utf8' }).stdout;
    expect(all).toMatch(/A receipt whose status is MISMATCH or INVALID is unattributed/);
  });

  it('writes no text in the PDF smaller than 8 pt, tables included', () => {
    const sizes = pdfFontSizes(fs.readFileSync(path.join(directory, 'r.pdf')));
    // The receipts table alone sets a size on each of its many pages.
    expect(sizes.length).toBeGreaterThan(20);
    expect(Math.min(...sizes)).toBe(MIN_FONT_SIZE);
    expect(MIN_FONT_SIZE).toBeGreaterThanOrEqual(8);
  });

  it('attaches the signed JSON to the PDF, which evroom verify checks: PASS, or the altered JSON', async () => {
    const pdf = path.join(directory, 'r.pdf');
    // poppler sees a real attachment, and it is the JSON form byte for byte.
    const listed = spawnSync('pdfdetach', ['-list', pdf], { encoding: 'utf8' });
    expect(listed.stdout).toBe(`1 embedded files\n1: ${report.report_id}.json\n`);
    const saved = path.join(directory, 'detached.json');
    expect(spawnSync('pdfdetach', ['-save', '1', '-o', saved, pdf]).status).toBe(0);
    expect(fs.readFileSync(saved, 'utf8')).toBe(fs.readFileSync(path.join(directory, 'r.json'), 'utf8'));
    const good = evroom(home, ['verify', pdf]);
    expect(good.stdout.split('\n').slice(0, 2)).toEqual([pdf, '  PDF carries a signed report: PASS']);
    expect(good.code).toBe(0);
    const checked = verifyJson(home, pdf);
    expect(checked.report.status).toBe('PASS');
    expect(checked.report.checks.map((check) => check.id)).toEqual([
      'pdf_attachment',
      'schema',
      'payload_sha256',
      'signature',
      'counts',
      'findings',
      'trust_snapshot',
    ]);
    // A PDF made again with one row of its JSON altered: the digest no longer matches.
    const altered = JSON.parse(JSON.stringify(report)) as SignedReport;
    if (altered.receipts[0]) altered.receipts[0].trust = 'trusted';
    altered.counts.by_trust.trusted = 1;
    altered.counts.by_trust.unpinned = RECEIPTS - 1;
    await writePdfFile(altered, JSON.stringify(altered), path.join(directory, 'altered.pdf'));
    const bad = evroom(home, ['verify', path.join(directory, 'altered.pdf')]);
    expect(bad.stdout).toContain('  PDF carries a signed report: MISMATCH');
    expect(bad.stdout).toMatch(/✗ fail\s+payload_sha256/);
    expect(bad.code).toBe(1);
    // Its signature replaced by another's: INVALID.
    const forged = { ...report, sig_b64u: `${report.sig_b64u.slice(0, -4)}AAAA` };
    await writePdfFile(forged, JSON.stringify(forged), path.join(directory, 'forged.pdf'));
    const forgedCheck = verifyJson(home, path.join(directory, 'forged.pdf'));
    expect(forgedCheck.report.status).toBe('INVALID');
    expect(forgedCheck.code).toBe(1);
    // A PDF that attaches nothing, and one cut short.
    const plain = path.join(directory, 'plain.pdf');
    fs.writeFileSync(
      plain,
      Buffer.from(
        fs.readFileSync(path.join(directory, 'r.pdf'), 'latin1').replace(/\/EmbeddedFiles/, '/EmbeddedFilez'),
        'latin1',
      ),
    );
    const none = evroom(home, ['verify', plain]);
    expect(none.stdout.split('\n')[1]).toBe('  PDF has no embedded signed report');
    expect(none.stdout).toContain('MALFORMED');
    expect(none.code).toBe(1);
    const cut = path.join(directory, 'cut.pdf');
    fs.writeFileSync(cut, fs.readFileSync(pdf).subarray(0, 4000));
    const cutCheck = evroom(home, ['verify', cut]);
    expect(cutCheck.stdout).toContain('PDF cannot be read for an embedded signed report');
    expect(cutCheck.stdout).toMatch(/startxref near its end/);
    expect(cutCheck.code).toBe(1);
  });

  it('refuses an empty scope unless --allow-empty, which marks the report EMPTY at the top', () => {
    const refused = evroom(home, ['report', '--status', 'INVALID', '--out', path.join(directory, 'empty.json')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'evroom: report: No receipt is in the report\'s scope (status INVALID): no report was made. Widen the filters, or pass --allow-empty for a report, which is marked "EMPTY: no receipts in scope". (empty_report)\n',
    );
    expect(fs.existsSync(path.join(directory, 'empty.json'))).toBe(false);
    const made = evroom(home, [
      'report',
      '--status',
      'INVALID',
      '--allow-empty',
      '--out',
      path.join(directory, 'empty.html'),
      '--out',
      path.join(directory, 'empty.pdf'),
    ]);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^Report rpt_\w+: EMPTY: no receipts in scope\n/);
    const html = fs.readFileSync(path.join(directory, 'empty.html'), 'utf8');
    expect(html).toMatch(
      /data-verdict="empty"><p class="headline"><span class="icon" aria-hidden="true">∅<\/span>EMPTY: no receipts in scope\./,
    );
    const text = spawnSync('pdftotext', ['-layout', path.join(directory, 'empty.pdf'), '-'], {
      encoding: 'utf8',
    }).stdout;
    expect(text).toMatch(/∅ EMPTY: no receipts in scope\./);
    for (const file of ['empty.html', 'empty.pdf']) expect(verifyJson(home, path.join(directory, file)).code).toBe(0);
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
      scope_warning: string | null;
      added: string[];
      removed: string[];
      changed: { field: string; from: string; to: string; reason: string }[];
    };
    expect(parsed.scope_warning).toBeNull();
    expect(parsed.added).toEqual([]);
    expect(parsed.removed).toEqual([]);
    expect(parsed.changed).toHaveLength(RECEIPTS);
    expect(parsed.changed[0]).toMatchObject({ field: 'trust', from: 'unpinned', to: 'trusted' });
    expect(parsed.changed[0]?.reason).toMatch(/^pinned/);
    // Reports of different scopes: the warning is the first line, and in the JSON.
    const narrow = evroom(home, ['report', '--status', 'PASS', '--out', path.join(directory, 'r3.json')]);
    expect(narrow.code).toBe(0);
    const warned = evroom(home, ['report', 'diff', path.join(directory, 'r.json'), path.join(directory, 'r3.json')]);
    const warning =
      'Warning: the two reports cover different scopes (old: no filters; new: status PASS): receipts added or removed may come from the different filters, not from changes in the ledger.';
    expect(warned.stdout.split('\n')[0]).toBe(warning);
    expect(warned.code).toBe(0);
    const warnedJson = evroom(home, [
      'report',
      'diff',
      path.join(directory, 'r.json'),
      path.join(directory, 'r3.json'),
      '--json',
    ]);
    expect((JSON.parse(warnedJson.stdout) as { scope_warning: string }).scope_warning).toBe(warning);
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
    // Nothing was kept for the refused runs: the reports made above only (r, empty, r2, r3).
    expect(fs.readdirSync(path.join(home, 'reports'))).toHaveLength(4);
  });
});
