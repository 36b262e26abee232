import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { b64Decode, createPortableProvider } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';
import { parseKeyFile } from '../../verify/key-file';

/** One case of cases.json. */
interface TypedPqCorpusCase {
  file: string;
  format: string;
  status: string;
  trust?: string;
  keys?: string;
  producer_verdict: 'valid' | 'invalid' | 'not-checked';
  error?: string;
  note: string;
}

/** cases.json. */
interface TypedPqCorpus {
  format_dir: string;
  producer: { repo: string; commit: string; paths: string[] };
  cases: TypedPqCorpusCase[];
}

// Documents the typed signer (srotzin/hive-typed-signer) made with fresh keys, each label
// confirmed by its own verifier (test-vectors/typed-pq/README.md); the node provider runs the
// same corpus in src-main/core/verify-corpus.test.ts.
const dir = fileURLToPath(new URL('../../../test-vectors/typed-pq/', import.meta.url));
const read = (file: string): string => readFileSync(dir + file, 'utf8');
const corpus = JSON.parse(read('cases.json')) as TypedPqCorpus;
const crypto = createPortableProvider();

describe('typed-pq corpus from the real producer (portable provider)', () => {
  it('names the producer and covers every variant', () => {
    expect(corpus.producer.repo).toBe('srotzin/hive-typed-signer');
    expect(corpus.producer.commit).toMatch(/^[0-9a-f]{40}$/);
    const statuses = new Set(corpus.cases.map((entry) => entry.status));
    for (const status of ['PASS', 'MISMATCH', 'INVALID', 'UNSUPPORTED']) expect(statuses).toContain(status);
  });

  it.each(corpus.cases.map((entry) => [`${entry.file}${entry.keys ? ` + ${entry.keys}` : ''}`, entry] as const))(
    '%s',
    (_name, entry) => {
      const ctx = createVerifyContext(crypto, {
        advertised: entry.keys ? parseKeyFile(read(entry.keys), { advertised: true }) : [],
      });
      const report = verifyDocument(read(entry.file), ctx);
      expect(report.format).toBe(entry.format);
      expect(report.status, JSON.stringify(report.errors)).toBe(entry.status);
      if (entry.trust !== undefined) expect(report.trust.status).toBe(entry.trust);
      // Trust is judged only for a signature over consistent content (a bare envelope's is).
      if (entry.trust === undefined) expect(report.trust.status).toBe('not_applicable');
      if (entry.error !== undefined) expect(report.errors.map((error) => error.code)).toContain(entry.error);
    },
  );

  it('a valid attestation is trusted only when a pinned entry holds the inline key bytes', () => {
    const text = read('linear-valid.json');
    const publicKey = b64Decode((JSON.parse(text) as { envelope: { public_key: string } }).envelope.public_key);
    const pinned = createVerifyContext(crypto, {
      pinned: [{ key_id: 'did:hive:typed-demo', algorithm: 'ML-DSA-65', public_key: publicKey, status: 'pinned' }],
    });
    expect(verifyDocument(text, pinned).trust).toMatchObject({ status: 'trusted', key_id: 'did:hive:typed-demo' });
    const other = crypto.mldsa65KeyGen(new Uint8Array(32).fill(3)).publicKey;
    const elsewhere = createVerifyContext(crypto, {
      pinned: [{ key_id: 'did:hive:typed-demo', algorithm: 'ML-DSA-65', public_key: other, status: 'pinned' }],
    });
    expect(verifyDocument(text, elsewhere).trust.status).toBe('unpinned');
  });

  it('says what the signature does not cover', () => {
    const report = verifyDocument(read('linear-sign-answer-valid.json'), createVerifyContext(crypto));
    const checks = Object.fromEntries(report.checks.map((check) => [check.id, check]));
    const envelope = (
      JSON.parse(read('linear-sign-answer-valid.json')) as { envelope: { fragments: { attested: boolean }[] } }
    ).envelope;
    envelope.fragments.forEach((fragment, index) => {
      expect(checks[`fragment.${index}`]?.status).toBe(fragment.attested ? 'pass' : 'unchecked');
    });
    expect(envelope.fragments.some((fragment) => !fragment.attested)).toBe(true);
    expect(checks['policy']).toMatchObject({ status: 'unchecked', detail: expect.stringContaining('policy_digest') });
    expect(checks['unsigned']?.status).toBe('unchecked');
    for (const member of ['issued_at', 'policy_id', 'fragment_count', 'timing_us']) {
      expect(checks['unsigned']?.detail).toContain(member);
    }
    expect(report.notes.join(' ')).toContain('issued_at is not signed');
  });

  it('notes a fragment whose text was never hashed (a SPIRE mint sent as value)', () => {
    const report = verifyDocument(read('spire-mint-unbound-values.json'), createVerifyContext(crypto));
    expect(report.status).toBe('PASS');
    expect(report.notes.join(' ')).toContain('digest of empty text');
    const plain = verifyDocument(read('linear-valid.json'), createVerifyContext(crypto));
    expect(plain.notes.join(' ')).not.toContain('digest of empty text');
  });

  it('notes the QPuF trust block and the temporal object as unchecked claims', () => {
    const report = verifyDocument(read('qpuf-sha384-temporal-sign-answer-valid.json'), createVerifyContext(crypto));
    expect(report.status).toBe('PASS');
    expect(report.notes.join(' ')).toContain('hive.qpuf.attestation');
    expect(report.checks.find((check) => check.id === 'temporal')?.status).toBe('unchecked');
    expect(report.checks.find((check) => check.id === 'hash_suite')?.detail).toContain('sha-384');
  });

  it('a bare envelope verifies as far as it goes: INDETERMINATE, its attested fragments unavailable', () => {
    const document = JSON.parse(read('linear-sign-answer-valid.json')) as { envelope: unknown };
    const report = verifyDocument(JSON.stringify(document.envelope), createVerifyContext(crypto));
    expect(report).toMatchObject({ format: 'typed-pq', status: 'INDETERMINATE' });
    expect(report.checks.find((check) => check.id === 'signature')?.status).toBe('pass');
    expect(report.errors.map((error) => error.code)).toContain('fragments_unavailable');
  });
});
