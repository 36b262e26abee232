import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';

// The SiGR chain corpus (test-vectors/sigr-chain/): documents the typed signer's own code made,
// labelled by its own verifier (see the folder's README). src-main/core/verify-corpus.test.ts
// runs the same cases on the node provider.
interface CorpusCase {
  file: string;
  format: string;
  status: string;
  trust?: string;
  error?: string;
  producer_verdict: string;
  note: string;
}
const folder = fileURLToPath(new URL('../../../test-vectors/sigr-chain/', import.meta.url));
const corpus = JSON.parse(readFileSync(`${folder}cases.json`, 'utf8')) as {
  format_dir: string;
  producer: { repo: string; commit: string; paths: string[] };
  cases: CorpusCase[];
};
const ctx = createVerifyContext(createPortableProvider());

describe('the SiGR chain corpus on the portable provider', () => {
  it('lists every document of the folder once, with a producer verdict', () => {
    expect(corpus.format_dir).toBe('sigr-chain');
    expect(corpus.producer.commit).toMatch(/^[0-9a-f]{40}$/);
    const documents = readdirSync(folder).filter((name) => name.endsWith('.json') && name !== 'cases.json');
    const listed = corpus.cases.map((entry) => entry.file);
    expect(new Set(listed).size).toBe(listed.length);
    // producer-pubkey.json is the producer's GET /pubkey answer for the run, not a receipt.
    expect([...listed, 'producer-pubkey.json'].sort()).toEqual(documents.sort());
    for (const entry of corpus.cases) expect(['valid', 'invalid']).toContain(entry.producer_verdict);
  });

  it.each(corpus.cases.map((entry) => [entry.file, entry] as const))('%s', (_file, entry) => {
    const report = verifyDocument(readFileSync(`${folder}${entry.file}`), ctx);
    expect(report.format).toBe(entry.format);
    expect(report.status).toBe(entry.status);
    if (entry.trust !== undefined) expect(report.trust.status).toBe(entry.trust);
    if (entry.error !== undefined) expect(report.errors.map((error) => error.code)).toContain(entry.error);
    expect(report.errors.some((error) => error.code === 'internal')).toBe(false);
  });

  it('says what the signature does not cover on every valid receipt', () => {
    for (const entry of corpus.cases.filter((item) => item.status === 'PASS')) {
      const report = verifyDocument(readFileSync(`${folder}${entry.file}`), ctx);
      const unchecked = report.checks.filter((check) => check.status === 'unchecked').map((check) => check.id);
      expect(unchecked, entry.file).toEqual(['step_io', 'issued_at']);
    }
  });
});
