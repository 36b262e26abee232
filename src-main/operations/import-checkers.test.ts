/**
 * One bundle checker: the same good and hostile bundles go through the import (yauzl, the
 * verification workers, the ledger) and through the browser reference verifier's checker
 * (jszip and src-shared/evidence/check-bundle.ts, exactly as the page's worker calls them), and
 * both must say the same: the same refusal (code, words, entry, pointer), or the same findings
 * (code, path, words), counts and manifest signature status.
 *
 * Left out, because one side cannot express them: anchors files (the page does not read their
 * records), receipt file names (the page does not compare them with receipt ids), exact
 * duplicate names (jszip keeps one entry per name) and zip damage each reader describes in its
 * own words.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import type { Finding } from '../../src-shared/api/vocabulary';
import type { LogCompleteness } from '../../src-shared/api/logs-contract';
import {
  logKeyEntry,
  makeLogEvidence,
  withKeyEntries,
  type LogEvidenceSpec,
} from '../../src-shared/evidence/log-test-support';
import { signClassical } from '../../src-shared/formats/classical';
import { createVerifyContext } from '../../src-shared/verify/context';
// eslint-disable-next-line import/no-restricted-paths -- the page's own bundle reader, run beside the import: only this test may
import { checkBundleZip } from '../../src-renderer/verifier/read-bundle';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { BundleError } from '../evidence/errors';
import type { ZipLimits } from '../evidence/limits';
import { serializeManifestSignature, signManifest } from '../evidence/manifest';
import {
  buildZip,
  bundleParts,
  keyEntryFor,
  zipBundle,
  type BundleParts,
  type RawZipEntry,
} from '../evidence/test-support';
import { openLedger } from '../ledger/index';
import { importBundle } from './import';
import { standardReceiptFile } from './import-test-support';

const crypto = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(41);
const ISSUER = 'did:svc:acme:k1';
const signerSeed = new Uint8Array(32).fill(42);
const SIGNER = 'did:svc:acme:bundles';
const signer = { seed: signerSeed, keyId: SIGNER };
const NOW = new Date('2026-11-20T12:00:00Z');

function standardReceipt(index: number): { stem: string; bytes: Uint8Array } {
  return standardReceiptFile(index, issuerSeed, ISSUER, crypto);
}

const receipts = Array.from({ length: 4 }, (_, index) => standardReceipt(index));
const keys = [keyEntryFor(ISSUER, issuerSeed, crypto), keyEntryFor(SIGNER, signerSeed, crypto)];

function parts(): BundleParts {
  const made = bundleParts(receipts, { keyId: SIGNER, keys });
  made.manifest.counts = { receipts: receipts.length + 1 };
  // A classical receipt has no id of its own: any file name is fine for it.
  made.files.set(
    'receipts/classical-1.json',
    utf8Encode(signClassical({ sequence: 1, amount: '2.50' }, issuerSeed, crypto)),
  );
  return made;
}

/** What a checker said of a bundle, in a form both can give. */
type Verdict =
  | { refused: { code: string; message: string; entry?: string; path?: string } }
  | {
      findings: Finding[];
      totalFindings: number;
      counts: { receipts: number; byStatus: unknown; byTrust: unknown; advertisedKeys: number };
      signature: string | undefined;
      log: LogCompleteness | null;
    };

/** Findings in one order: the two checkers list them as they meet them, and they meet them in another order. */
function sorted(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) =>
    `${a.code}\u0000${a.path}\u0000${a.message}`.localeCompare(`${b.code}\u0000${b.path}\u0000${b.message}`),
  );
}

describe('the import and the browser reference verifier check bundles alike', () => {
  let directory: string;
  let counter = 0;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-checkers-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  async function throughImport(zip: Uint8Array, limits: Partial<ZipLimits>): Promise<Verdict> {
    counter += 1;
    const file = path.join(directory, `bundle-${counter}.zip`);
    fs.writeFileSync(file, zip);
    const ledger = openLedger(path.join(directory, `ledger-${counter}.sqlite`));
    try {
      const result = await importBundle(ledger, file, { workers: 1, now: NOW, limits });
      return {
        findings: sorted(result.findings),
        totalFindings: result.totalFindings,
        counts: {
          receipts: result.counts.receipts,
          byStatus: result.counts.byStatus,
          byTrust: result.counts.byTrust,
          advertisedKeys: result.counts.advertisedKeys,
        },
        signature: result.signature.status,
        log: result.log,
      };
    } catch (error) {
      if (!(error instanceof BundleError)) throw error;
      return {
        refused: {
          code: error.code,
          message: error.message,
          ...(error.entry === undefined ? {} : { entry: error.entry }),
          ...(error.path === undefined ? {} : { path: error.path }),
        },
      };
    } finally {
      ledger.close();
    }
  }

  async function throughPage(zip: Uint8Array, limits: Partial<ZipLimits>): Promise<Verdict> {
    const context = createVerifyContext(crypto, { pinned: [], advertised: [], secrets: [], now: NOW });
    const check = await checkBundleZip(new Uint8Array(zip), context, { limits });
    if (check.status === 'refused') return { refused: check.refusal as NonNullable<typeof check.refusal> };
    return {
      findings: sorted(check.findings),
      totalFindings: check.totalFindings,
      counts: {
        receipts: check.counts.receipts,
        byStatus: check.counts.byStatus,
        byTrust: check.counts.byTrust,
        advertisedKeys: check.counts.advertisedKeys,
      },
      signature: check.signature?.status,
      log: check.log,
    };
  }

  async function same(zip: Uint8Array, limits: Partial<ZipLimits> = {}): Promise<Verdict> {
    const imported = await throughImport(zip, limits);
    const paged = await throughPage(zip, limits);
    expect(paged).toEqual(imported);
    return imported;
  }

  function findingCodes(verdict: Verdict): string[] {
    if ('refused' in verdict) throw new Error(`refused: ${verdict.refused.code}`);
    return verdict.findings.map((finding) => finding.code);
  }

  function refusalCode(verdict: Verdict): string {
    if (!('refused' in verdict)) throw new Error('not refused');
    return verdict.refused.code;
  }

  it('a clean bundle', async () => {
    const verdict = await same(zipBundle(parts(), signer, crypto));
    expect(findingCodes(verdict)).toEqual([]);
    expect(verdict).toMatchObject({ signature: 'valid', counts: { receipts: 5, byStatus: { PASS: 5 } }, log: null });
  });

  describe('log evidence (issue 28)', () => {
    const logKey = { seed: new Uint8Array(32).fill(61), name: 'evroom.test/log' };
    // The tenant's log: eight receipts issued at 12:00:00 ... 12:00:07; the period 12:00:02 to
    // 12:00:06 holds leaves 2 to 5, between leaf 1 and leaf 6.
    const logged = Array.from({ length: 8 }, (_, index) => standardReceipt(index));
    const SINCE = '2026-11-01T12:00:02Z';
    const UNTIL = '2026-11-01T12:00:06Z';

    function spec(changes: Partial<LogEvidenceSpec> = {}): LogEvidenceSpec {
      return {
        crypto,
        key: logKey,
        tenant: 'acme',
        log: logged.map((receipt) => receipt.bytes),
        period: { since: SINCE, until: UNTIL },
        first: 2,
        last: 5,
        before: 1,
        after: 6,
        ...changes,
      };
    }

    /** The period's bundle: its receipts, the keys (with the log key) and the two log files. */
    function logBundle(
      options: {
        spec?: Partial<LogEvidenceSpec>;
        proofs?: (proofs: Record<string, unknown>) => unknown;
        checkpoint?: string;
        receipts?: number[];
        logKeyAdvertised?: boolean;
      } = {},
    ): Uint8Array {
      const fixture = makeLogEvidence(spec(options.spec));
      const held = (options.receipts ?? [2, 3, 4, 5]).map(
        (index) => logged[index] as { stem: string; bytes: Uint8Array },
      );
      const bundle = bundleParts(held, { keyId: SIGNER, keys });
      const keysText = new TextDecoder().decode(bundle.files.get('keys/service-keys.json'));
      if (options.logKeyAdvertised !== false) {
        const entry = logKeyEntry(crypto, logKey, 'did:svc:acme:log');
        bundle.files.set('keys/service-keys.json', utf8Encode(withKeyEntries(keysText, [entry])));
      }
      bundle.files.set('log/checkpoint.txt', utf8Encode(options.checkpoint ?? fixture.checkpoint));
      const proofs = options.proofs === undefined ? fixture.proofs : options.proofs(fixture.proofs);
      bundle.files.set('log/proofs.json', utf8Encode(typeof proofs === 'string' ? proofs : JSON.stringify(proofs)));
      return zipBundle(bundle, signer, crypto);
    }

    function logOf(verdict: Verdict): LogCompleteness | null {
      if ('refused' in verdict) throw new Error(`refused: ${verdict.refused.code}`);
      return verdict.log;
    }

    it('a complete bundle: complete for its period at size N', async () => {
      const verdict = await same(logBundle());
      expect(findingCodes(verdict)).toEqual([]);
      expect(logOf(verdict)).toMatchObject({
        status: 'complete',
        signer: 'advertised',
        tree_size: 8,
        sentence: `complete for ${SINCE} to ${UNTIL} at size 8`,
      });
      expect(verdict).toMatchObject({ counts: { receipts: 4, advertisedKeys: 3 } });
    });

    it('a receipt removed from the period’s bundle is named missing', async () => {
      const verdict = await same(logBundle({ receipts: [2, 4, 5] }));
      expect(findingCodes(verdict)).toEqual(['log_leaf_missing']);
      expect(logOf(verdict)).toMatchObject({ status: 'incomplete', missing: [3], missing_count: 1 });
      const withoutLeaf = await same(
        logBundle({
          receipts: [2, 4, 5],
          proofs: (proofs) => ({
            ...proofs,
            leaves: (proofs['leaves'] as { index: number }[]).filter((leaf) => leaf.index !== 3),
          }),
        }),
      );
      expect(logOf(withoutLeaf)).toMatchObject({ status: 'incomplete', missing: [3] });
    });

    it('a reordered or a duplicated leaf fails', async () => {
      const reordered = await same(
        logBundle({
          proofs: (proofs) => {
            const leaves = proofs['leaves'] as unknown[];
            return { ...proofs, leaves: [leaves[0], leaves[2], leaves[1], leaves[3]] };
          },
        }),
      );
      expect(findingCodes(reordered)).toEqual(['log_leaf_order']);
      expect(logOf(reordered)?.status).toBe('invalid');
      const duplicated = await same(
        logBundle({
          proofs: (proofs) => {
            const leaves = proofs['leaves'] as unknown[];
            return { ...proofs, leaves: [...leaves, leaves[1]] };
          },
        }),
      );
      expect(findingCodes(duplicated)).toEqual(['log_leaf_duplicate']);
    });

    it('a checkpoint signed over a different tree fails', async () => {
      const other = makeLogEvidence(
        spec({ log: [...logged.slice(0, 7).map((receipt) => receipt.bytes), standardReceipt(40).bytes] }),
      );
      const verdict = await same(logBundle({ checkpoint: other.checkpoint }));
      expect(findingCodes(verdict)).toEqual(['log_checkpoint_invalid']);
      expect(logOf(verdict)?.status).toBe('invalid');
    });

    it('a stale checkpoint is a finding', async () => {
      const verdict = await same(logBundle({ spec: { size: 5, after: null } }));
      expect(findingCodes(verdict)).toEqual(['log_checkpoint_stale']);
      expect(logOf(verdict)).toMatchObject({ stale: true, tree_size: 5 });
    });

    it('an empty log is complete at size 0, not stale', async () => {
      const verdict = await same(
        logBundle({
          spec: { log: [], period: { since: null, until: null }, first: null, last: null, before: null, after: null },
          receipts: [],
        }),
      );
      expect(findingCodes(verdict)).toEqual([]);
      expect(logOf(verdict)).toMatchObject({
        status: 'complete',
        stale: false,
        tree_size: 0,
        sentence: 'complete for the whole log at size 0',
      });
    });

    it('wrong boundaries fail', async () => {
      const verdict = await same(
        logBundle({ proofs: (proofs) => ({ ...proofs, period: { since: '2026-11-01T12:00:01Z', until: UNTIL } }) }),
      );
      expect(findingCodes(verdict)).toEqual(['log_boundary_invalid']);
    });

    it('an unknown log key', async () => {
      const verdict = await same(logBundle({ logKeyAdvertised: false }));
      expect(findingCodes(verdict)).toEqual(['log_key_unknown']);
      expect(logOf(verdict)).toMatchObject({ status: 'invalid', signer: 'unknown' });
    });

    it('a malformed proofs.json', async () => {
      for (const text of ['{"format": ', '[]', '{"format": "evroom.log-evidence/1"}']) {
        const verdict = await same(logBundle({ proofs: () => text }));
        expect(findingCodes(verdict)).toEqual(['log_evidence_invalid']);
        expect(logOf(verdict)?.status).toBe('invalid');
      }
    });
  });

  it('a bundle whose keys name a did:hive signer and an opaque issuer id (PROTOCOL section 0)', async () => {
    const opaque = 'test-key-001';
    const hive = 'did:hive:acme-bundles';
    const issued = Array.from({ length: 2 }, (_, index) => standardReceiptFile(index, issuerSeed, opaque, crypto));
    const bundle = bundleParts(issued, {
      keyId: hive,
      keys: [keyEntryFor(opaque, issuerSeed, crypto), keyEntryFor(hive, signerSeed, crypto)],
    });
    const verdict = await same(zipBundle(bundle, { seed: signerSeed, keyId: hive }, crypto));
    expect(findingCodes(verdict)).toEqual([]);
    expect(verdict).toMatchObject({
      signature: 'valid',
      counts: { receipts: 2, byStatus: { PASS: 2 }, advertisedKeys: 2 },
    });

    // The same bundle whose keys file names an id with a space: both checkers say so alike.
    const spaced = bundleParts(issued, {
      keyId: hive,
      keys: [keyEntryFor(hive, signerSeed, crypto)],
    });
    const keysName = [...spaced.files.keys()].find((name) => name.startsWith('keys/')) as string;
    const text = new TextDecoder().decode(spaced.files.get(keysName));
    spaced.files.set(keysName, utf8Encode(text.replace(hive, 'did:hive:acme bundles')));
    const refused = await same(zipBundle(spaced, { seed: signerSeed, keyId: hive }, crypto));
    expect(findingCodes(refused)).toEqual([
      'keys_invalid',
      'manifest_signature_unavailable',
      'receipt_not_pass',
      'receipt_not_pass',
    ]);
    expect(JSON.stringify(refused)).toContain('must not contain spaces (character 14 is a space)');
  });

  it('an altered, a missing and an extra file, and a file outside the layout', async () => {
    const bundle = parts();
    const listed = new Map(bundle.files);
    // The manifest lists other bytes for the classical receipt than the zip holds.
    listed.set('receipts/classical-1.json', utf8Encode('{"listed": "other bytes"}'));
    bundle.omitted.add(`receipts/${receipts[0]!.stem}.json`);
    const unlisted = standardReceipt(9);
    bundle.unlisted.set(`receipts/${unlisted.stem}.json`, unlisted.bytes);
    bundle.unlisted.set('notes.txt', utf8Encode('hello'));
    const verdict = await same(zipBundle(bundle, signer, crypto, { listed }));
    expect(findingCodes(verdict).sort()).toEqual(
      ['file_extra', 'file_extra', 'file_mismatch', 'file_missing', 'unexpected_file'].sort(),
    );
  });

  it('a directory outside the layout', async () => {
    const verdict = await same(zipBundle(parts(), signer, crypto, { extra: [{ name: 'stray/' }] }));
    expect(findingCodes(verdict)).toEqual(['unexpected_file']);
  });

  it('receipts that do not verify', async () => {
    const bundle = parts();
    const [first] = receipts;
    const tampered = utf8Encode(new TextDecoder().decode(first!.bytes).replace('gold', 'silver'));
    bundle.files.set(`receipts/${first!.stem}.json`, tampered);
    bundle.files.set('receipts/classical-1.json', utf8Encode('{"not": "a receipt"}'));
    const verdict = await same(zipBundle(bundle, signer, crypto));
    expect(findingCodes(verdict)).toEqual(['receipt_not_pass', 'receipt_not_pass']);
  });

  it('a receipt file named neither by its id nor its SHA-256', async () => {
    const bundle = parts();
    const [first] = receipts;
    bundle.files.delete(`receipts/${first!.stem}.json`);
    bundle.files.set('receipts/renamed.json', first!.bytes);
    const verdict = await same(zipBundle(bundle, signer, crypto));
    expect(findingCodes(verdict)).toEqual(['receipt_name_mismatch']);
  });

  it('manifest.sig missing, malformed, over other bytes, by another key', async () => {
    expect(findingCodes(await same(zipBundle(parts(), signer, crypto, { signature: false })))).toEqual([
      'manifest_signature_missing',
    ]);
    expect(findingCodes(await same(zipBundle(parts(), signer, crypto, { signature: '{"key_id": 1' })))).toEqual([
      'manifest_signature_malformed',
    ]);
    const otherBytes = serializeManifestSignature(signManifest(utf8Encode('{}'), signerSeed, SIGNER, crypto));
    expect(findingCodes(await same(zipBundle(parts(), signer, crypto, { signature: otherBytes })))).toEqual([
      'manifest_signature_mismatch',
    ]);
    const otherKey = { seed: new Uint8Array(32).fill(43), keyId: 'did:svc:acme:other' };
    const byOther = await same(zipBundle(parts(), otherKey, crypto));
    expect(findingCodes(byOther)).toContain('manifest_key_mismatch');
  });

  it('counts that disagree with the list', async () => {
    const bundle = parts();
    bundle.manifest.counts = { receipts: 7 };
    expect(findingCodes(await same(zipBundle(bundle, signer, crypto)))).toEqual(['count_mismatch']);
  });

  it('a keys file that cannot be used: not JSON, one key_id twice, not UTF-8', async () => {
    const notJson = parts();
    notJson.files.set('keys/service-keys.json', utf8Encode('{"keys": ['));
    expect(findingCodes(await same(zipBundle(notJson, signer, crypto)))).toContain('keys_invalid');

    const twice = parts();
    const other = keyEntryFor(ISSUER, new Uint8Array(32).fill(44), crypto);
    const text = new TextDecoder().decode(twice.files.get('keys/service-keys.json'));
    const parsed = JSON.parse(text) as { keys: unknown[] };
    const [otherJson] = (
      JSON.parse(
        new TextDecoder().decode(bundleParts([], { keyId: SIGNER, keys: [other] }).files.get('keys/service-keys.json')),
      ) as { keys: unknown[] }
    ).keys;
    parsed.keys.push(otherJson);
    twice.files.set('keys/service-keys.json', utf8Encode(JSON.stringify(parsed)));
    expect(findingCodes(await same(zipBundle(twice, signer, crypto)))).toContain('keys_invalid');

    // A label with a byte that is not UTF-8: JSON text is UTF-8 (RFC 8259), so the file is unusable.
    const notUtf8 = parts();
    const keysText = new TextDecoder().decode(notUtf8.files.get('keys/service-keys.json'));
    const labelled = (JSON.parse(keysText) as { keys: Record<string, unknown>[] }).keys.map((key) => ({
      ...key,
      label: 'LABEL',
    }));
    const bytes = Buffer.from(JSON.stringify({ keys: labelled }), 'utf8');
    const at = bytes.indexOf('LABEL');
    bytes[at] = 0xff;
    notUtf8.files.set('keys/service-keys.json', bytes);
    const verdict = await same(zipBundle(notUtf8, signer, crypto));
    expect(findingCodes(verdict)).toContain('keys_invalid');
    expect(verdict).toMatchObject({ counts: { advertisedKeys: 0 } });
  });

  describe('refusals', () => {
    const hostile: [string, RawZipEntry, string][] = [
      ['a ".." segment', { name: '../evil.json', data: utf8Encode('{}') }, 'zip_path_traversal'],
      ['an absolute path', { name: '/etc/evil.json', data: utf8Encode('{}') }, 'zip_path_absolute'],
      ['a drive letter', { name: 'C:/evil.json', data: utf8Encode('{}') }, 'zip_path_drive'],
      ['a backslash', { name: 'receipts\\evil.json', data: utf8Encode('{}') }, 'zip_path_backslash'],
      ['a control character', { name: 'receipts/e\u0001vil.json', data: utf8Encode('{}') }, 'zip_path_control'],
      ['an empty segment', { name: 'receipts//evil.json', data: utf8Encode('{}') }, 'zip_path_invalid'],
      [
        'a symbolic link',
        { name: 'receipts/link.json', data: utf8Encode('/etc/passwd'), externalAttributes: (0o120777 << 16) >>> 0 },
        'zip_symlink',
      ],
    ];
    for (const [what, entry, code] of hostile) {
      it(`an entry name with ${what}`, async () => {
        expect(refusalCode(await same(zipBundle(parts(), signer, crypto, { extra: [entry] })))).toBe(code);
      });
    }

    it('names that are one after case folding', async () => {
      const extra = [
        { name: 'receipts/Same.json', data: utf8Encode('{}') },
        { name: 'receipts/same.json', data: utf8Encode('{}') },
      ];
      expect(refusalCode(await same(zipBundle(parts(), signer, crypto, { extra })))).toBe('zip_duplicate_name');
    });

    it('no manifest, a manifest that is not JSON, another bundle format', async () => {
      const files = [...parts().files].map(([name, data]) => ({ name, data }));
      expect(refusalCode(await same(buildZip(files)))).toBe('manifest_missing');
      expect(refusalCode(await same(zipBundle(parts(), signer, crypto, { manifestText: '{"bundle_format":' })))).toBe(
        'manifest_invalid',
      );
      const other = JSON.stringify({
        bundle_format: 'evroom.evidence/2',
        tenant_id: 'acme',
        generated_at: '2026-11-01T12:00:00.000Z',
        key_id: SIGNER,
        files: [],
        counts: {},
      });
      expect(refusalCode(await same(zipBundle(parts(), signer, crypto, { manifestText: other })))).toBe(
        'manifest_unsupported_format',
      );
    });

    it('more entries, a larger entry or more bytes than the limits', async () => {
      const zip = zipBundle(parts(), signer, crypto);
      expect(refusalCode(await same(zip, { maxEntries: 3 }))).toBe('zip_too_many_entries');
      expect(refusalCode(await same(zip, { maxEntryBytes: 200 }))).toBe('zip_entry_too_large');
      expect(refusalCode(await same(zip, { maxBytes: 2000 }))).toBe('zip_too_large');
      const bomb = { name: 'receipts/bomb.json', data: new Uint8Array(64 * 1024).fill(0x20) };
      expect(refusalCode(await same(zipBundle(parts(), signer, crypto, { extra: [bomb] })))).toBe('zip_ratio_exceeded');
    });
  });
});
