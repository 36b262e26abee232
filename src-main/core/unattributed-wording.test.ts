/**
 * PROTOCOL section 1 through every sample and every conformance case: a MISMATCH or INVALID
 * report never writes a key's trust in its checks (describeKey's outcome), names the key it
 * claims, and an inline ML-DSA-65 key without a key id (typed-pq, sigr-chain-pq) is claimed by
 * its fingerprint, or by the pinned key id its bytes match.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64Decode } from '../../src-shared/crypto';
import { createVerifyContext, type KeyEntry } from '../../src-shared/verify/context';
import { UNATTRIBUTED_STATUSES, type Report } from '../../src-shared/verify/report';
import { verifyDocument } from '../../src-shared/verify/verify';
import { buildSamples } from '../operations/samples';
import { tryLoadCorpus } from '../test-support/conformance-corpus';
import { createNodeCryptoProvider } from './node-crypto-provider';

const crypto = createNodeCryptoProvider();
const TRUST_WORDS = /trust (?:trusted|unpinned|revoked|expired)\b/;

/** Every check of a report and of the reports nested in it. */
function checks(report: Report): Report['checks'] {
  return [...report.checks, ...(report.inner ? checks(report.inner) : [])];
}

/**
 * The check details of a MISMATCH or INVALID report that write a key's trust. Trust is judged
 * only for a key that signed what is here (PROTOCOL section 1), so there must be none: not for
 * a failing signature, nor for one that verifies over content that does not hold together.
 */
function trustWords(report: Report): string[] {
  return checks(report)
    .filter((check) => TRUST_WORDS.test(check.detail ?? ''))
    .map((check) => `${check.id}: ${check.detail}`);
}

/** The fingerprint as docs/protocol.md defines it, computed here with node:crypto. */
function fingerprintOf(publicKey: Uint8Array): string {
  const hex = createHash('sha256').update(publicKey).digest('hex').slice(0, 32).toUpperCase();
  return hex.match(/.{4}/g)!.join('-');
}

function inlineKey(bytes: Uint8Array): Uint8Array | undefined {
  const document = JSON.parse(new TextDecoder().decode(bytes)) as { envelope?: { public_key?: unknown } };
  const key = document.envelope?.public_key;
  return typeof key === 'string' ? b64Decode(key) : undefined;
}

describe('a document its named key did not sign', () => {
  it('never carries trust words in its checks, and names its claimed key (every sample, keys pinned)', () => {
    const set = buildSamples();
    const ctx = createVerifyContext(crypto, {
      pinned: set.keys.map((key) => ({ ...key, status: 'pinned' as const })),
      secrets: set.secrets,
    });
    let unattributed = 0;
    for (const sample of set.files) {
      const report = verifyDocument(sample.text, ctx);
      if (!UNATTRIBUTED_STATUSES.includes(report.status)) continue;
      const seen = `${sample.file}: ${report.status}/${report.trust.status}`;
      expect(trustWords(report), seen).toEqual([]);
      expect(['unattributed', 'not_applicable'], seen).toContain(report.trust.status);
      if (report.trust.status === 'unattributed') {
        unattributed += 1;
        expect(report.trust.claimed_key_id, seen).toBeTruthy();
        expect(report.trust.key_id, seen).toBeUndefined();
      }
    }
    expect(unattributed).toBeGreaterThan(10);
  });

  const { cases } = tryLoadCorpus();
  const pq = cases.filter(
    (entry) =>
      (entry.formatDir === 'typed-pq' || entry.formatDir === 'sigr-chain') &&
      entry.trust === 'unattributed' &&
      entry.keys === undefined,
  );

  it('covers the tampered typed-pq and sigr-chain-pq documents of the corpus', () => {
    expect(pq.filter((entry) => entry.formatDir === 'typed-pq').length).toBeGreaterThan(5);
    expect(pq.filter((entry) => entry.formatDir === 'sigr-chain').length).toBeGreaterThan(5);
  });

  it.each(pq.map((entry) => [entry.id, entry] as const))(
    '%s: claims its inline key by fingerprint, or by the pinned key id its bytes match',
    (_id, entry) => {
      const key = inlineKey(entry.bytes);
      expect(key, 'the document carries an inline key').toBeDefined();
      const alone = verifyDocument(entry.bytes, createVerifyContext(crypto));
      expect(alone.trust).toMatchObject({
        status: 'unattributed',
        claimed_key_id: `key-fingerprint:${fingerprintOf(key!)}`,
        key_fingerprint: fingerprintOf(key!),
      });
      expect(trustWords(alone)).toEqual([]);
      const pin: KeyEntry = {
        key_id: 'did:hive:pinned-pq',
        algorithm: 'ML-DSA-65',
        public_key: key!,
        status: 'pinned',
      };
      const pinned = verifyDocument(entry.bytes, createVerifyContext(crypto, { pinned: [pin] }));
      expect([pinned.status, pinned.trust.status, pinned.trust.claimed_key_id]).toEqual([
        entry.status,
        'unattributed',
        'did:hive:pinned-pq',
      ]);
      expect(trustWords(pinned)).toEqual([]);
    },
  );

  it('a valid typed-pq document under its pinned key is trusted, with the same fingerprint', () => {
    const valid = cases.find((entry) => entry.id === 'typed-pq/linear-valid.json');
    expect(valid).toBeDefined();
    const key = inlineKey(valid!.bytes)!;
    const pin: KeyEntry = { key_id: 'did:hive:pinned-pq', algorithm: 'ML-DSA-65', public_key: key, status: 'pinned' };
    const report = verifyDocument(valid!.bytes, createVerifyContext(crypto, { pinned: [pin] }));
    expect(report.trust).toMatchObject({
      status: 'trusted',
      key_id: 'did:hive:pinned-pq',
      key_fingerprint: fingerprintOf(key),
    });
    expect(checks(report).some((check) => check.detail?.includes('trust trusted'))).toBe(true);
  });
});
