import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../src-shared/crypto';
import { createVerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from './node-crypto-provider';

// The countersigner corpus (test-vectors/countersigner) on OpenSSL: each case's status, format
// and trust, and a report identical to the portable provider's.
interface CorpusCase {
  file: string;
  format: string;
  status: string;
  trust?: string;
  error?: string;
}
const folder = new URL('../../test-vectors/countersigner/', import.meta.url);
const corpus = JSON.parse(readFileSync(new URL('cases.json', folder), 'utf8')) as { cases: CorpusCase[] };
const now = new Date('2026-12-01T00:00:00Z');
const node = createVerifyContext(createNodeCryptoProvider(), { now });
const portable = createVerifyContext(createPortableProvider(), { now });

describe('the countersigner corpus (node provider)', () => {
  it.each(corpus.cases.map((entry) => [entry.file, entry] as const))('%s', (_file, entry) => {
    const bytes = readFileSync(new URL(entry.file, folder));
    const report = verifyDocument(bytes, node);
    expect(report.format).toBe(entry.format);
    expect(report.status).toBe(entry.status);
    if (entry.trust !== undefined) expect(report.trust.status).toBe(entry.trust);
    if (entry.error !== undefined) expect(report.errors.map((error) => error.code)).toContain(entry.error);
    expect(verifyDocument(bytes, portable)).toEqual(report);
  });
});
