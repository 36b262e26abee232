import { describe, expect, it } from 'vitest';
import type { BundleCounts, BundleSignature } from '../../src-shared/api/contract';
import { bundleVerdict, readLogCompleteness } from './bundle-views';

function counts(byCode: Record<string, number>): BundleCounts {
  const total = Object.values(byCode).reduce((sum, value) => sum + value, 0);
  return {
    files: 10,
    receipts: 8,
    receiptsNew: 8,
    receiptsKnown: 0,
    anchors: 0,
    anchorsNew: 0,
    advertisedKeys: 1,
    byStatus: [],
    byTrust: [],
    findingsTotal: total,
    findingsByCode: Object.entries(byCode),
  };
}

function signature(status: BundleSignature['status'], trust: BundleSignature['trust'] = 'unpinned'): BundleSignature {
  return {
    status,
    keyId: status === 'missing' ? undefined : 'did:key:z6Mk',
    trust: status === 'missing' ? 'not_applicable' : trust,
    trustLabel: undefined,
    trustDetail: undefined,
    manifestSha256: undefined,
    detail: undefined,
  };
}

describe('bundleVerdict', () => {
  it('says "altered after signing" with the count of each kind present, and never "intact"', () => {
    const verdict = bundleVerdict(
      'complete',
      signature('valid'),
      counts({ file_mismatch: 1, file_missing: 1, file_extra: 1, receipt_not_pass: 2 }),
    );
    expect(verdict).toMatchObject({
      kind: 'altered',
      tone: 'bad',
      label: 'Altered',
      headline: 'Altered after signing: 1 changed, 1 missing, 1 extra, 2 receipts not PASS',
      changed: 1,
      missing: 1,
      extra: 1,
      receiptsNotPass: 2,
      other: 0,
    });
    expect(`${verdict.label} ${verdict.headline} ${verdict.detail}`).not.toMatch(/intact/i);
    // Only the kinds present; one file is enough.
    expect(bundleVerdict('complete', signature('valid'), counts({ file_missing: 3 })).headline).toBe(
      'Altered after signing: 3 missing',
    );
    expect(bundleVerdict('complete', signature('valid'), counts({ file_extra: 1 })).kind).toBe('altered');
  });

  it('says "intact" only when no file differs from the signed manifest', () => {
    const clean = bundleVerdict('complete', signature('valid', 'trusted'), counts({}));
    expect(clean).toMatchObject({
      kind: 'intact',
      tone: 'good',
      headline: 'Intact: every file matches the signed manifest, and every receipt verified PASS',
    });
    expect(clean.detail).toContain('a key you pinned');
    const notPass = bundleVerdict('complete', signature('valid'), counts({ receipt_not_pass: 2 }));
    expect(notPass).toMatchObject({
      kind: 'receipts_not_pass',
      tone: 'bad',
      headline: 'Files intact; 2 receipts not PASS',
    });
    const other = bundleVerdict(
      'complete',
      signature('valid'),
      counts({ count_mismatch: 1, manifest_key_mismatch: 1 }),
    );
    expect(other).toMatchObject({ kind: 'intact', tone: 'warn', other: 2 });
    expect(other.headline).toBe('Intact: every file matches the signed manifest; 2 other findings');
    // The log's findings are said as such, and a split view is bad news, not a doubt.
    const incomplete = bundleVerdict('complete', signature('valid'), counts({ log_leaf_missing: 1 }));
    expect(incomplete).toMatchObject({ kind: 'intact', tone: 'warn', other: 0 });
    expect(incomplete.headline).toBe('Intact: every file matches the signed manifest; 1 log finding');
    expect(incomplete.detail).toContain('does not show the period complete');
    const split = bundleVerdict('complete', signature('valid'), counts({ log_split_view: 1 }));
    expect(split).toMatchObject({ kind: 'intact', tone: 'bad' });
    expect(split.detail).toContain('a split view');
    // A revoked signer is never green.
    expect(bundleVerdict('complete', signature('valid', 'revoked'), counts({})).tone).toBe('warn');
  });

  it('gives unsigned and unverifiable bundles their own verdict, never "intact"', () => {
    const unsigned = bundleVerdict('complete', signature('missing'), counts({ manifest_signature_missing: 1 }));
    expect(unsigned).toMatchObject({ kind: 'unsigned', tone: 'warn', label: 'Unsigned', other: 0 });
    expect(unsigned.headline).toBe('Unsigned: the bundle has no manifest.sig; the files match the manifest');
    const unsignedAltered = bundleVerdict(
      'complete',
      signature('missing'),
      counts({ manifest_signature_missing: 1, file_mismatch: 2 }),
    );
    expect(unsignedAltered).toMatchObject({ kind: 'unsigned', tone: 'bad' });
    expect(unsignedAltered.headline).toBe(
      'Unsigned: the bundle has no manifest.sig, and files differ from the manifest: 2 changed',
    );
    for (const status of ['invalid', 'mismatch', 'malformed'] as const) {
      const verdict = bundleVerdict('complete', signature(status), counts({ [`manifest_signature_${status}`]: 1 }));
      expect(verdict).toMatchObject({ kind: 'signature_invalid', tone: 'bad', label: 'Signature invalid' });
      expect(verdict.headline).toMatch(/^Not verified: manifest\.sig /);
    }
    const unchecked = bundleVerdict('complete', signature('unavailable'), counts({ receipt_not_pass: 1 }));
    expect(unchecked).toMatchObject({ kind: 'signature_unchecked', tone: 'bad' });
    expect(unchecked.headline).toBe(
      'Signature not checked (no key for the signer); the files match the manifest; 1 receipt not PASS',
    );
    for (const verdict of [unsigned, unsignedAltered, unchecked]) {
      expect(`${verdict.headline} ${verdict.detail}`).not.toMatch(/intact/i);
    }
  });

  it('gives no verdict for an unfinished import or one whose checks were not recorded', () => {
    const partial = bundleVerdict('partial', signature('valid'), counts({ file_mismatch: 1 }));
    expect(partial).toMatchObject({ kind: 'unfinished', tone: 'warn', changed: 1 });
    expect(partial.detail).toContain('found so far: 1 changed');
    expect(bundleVerdict('complete', undefined, counts({})).kind).toBe('not_recorded');
    expect(bundleVerdict('complete', signature('valid'), { ...counts({}), findingsTotal: undefined }).kind).toBe(
      'not_recorded',
    );
  });
});

describe('readLogCompleteness', () => {
  const stored = {
    status: 'incomplete',
    origin: 'evroom.local/0123456789abcdef/tenants/acme',
    key_name: 'evroom.local/0123456789abcdef',
    tree_size: 12,
    root_hex: 'ab'.repeat(32),
    signer: 'advertised',
    period: { since: '2026-11-01T00:00:00Z', until: null },
    first_index: 3,
    last_index: 11,
    missing: [5, 6],
    missing_count: 2,
    stale: false,
    consistency: 'consistent',
    sentence: 'incomplete: 2 leaves missing (indices 5, 6)',
  };

  it('reads what the import stored, as parsed JSON or as text', () => {
    expect(readLogCompleteness(stored)).toEqual(stored);
    expect(readLogCompleteness(JSON.stringify(stored))).toEqual(stored);
  });

  it('gives null for a bundle without log evidence or for something that is no completeness', () => {
    for (const value of [undefined, null, '', 'not json', '[]', 42, [], { status: 'complete' }])
      expect(readLogCompleteness(value), JSON.stringify(value)).toBeNull();
  });

  it('never reads an unknown status as complete, and drops members that are not what they say', () => {
    const read = readLogCompleteness({
      ...stored,
      status: 'complete-ish',
      signer: 'friend',
      consistency: 'probably',
      tree_size: -1,
      first_index: 'three',
      missing: [5, 'six', -7, 1.5, 8],
      missing_count: 1,
      stale: 'yes',
      period: 'always',
    });
    expect(read).toMatchObject({
      status: 'invalid',
      signer: 'unknown',
      first_index: null,
      last_index: 11,
      missing: [5, 8],
      missing_count: 2,
      stale: false,
      period: { since: null, until: null },
    });
    expect(read).not.toHaveProperty('consistency');
    expect(read).not.toHaveProperty('tree_size');
  });

  it('keeps at most the first 1,000 missing indices', () => {
    const missing = Array.from({ length: 1500 }, (_, index) => index);
    const read = readLogCompleteness({ ...stored, missing, missing_count: 1500 });
    expect(read?.missing).toHaveLength(1000);
    expect(read?.missing_count).toBe(1500);
  });
});
