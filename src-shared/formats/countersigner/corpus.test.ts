import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';

// Documents the real producer (srotzin/hive-countersigner, run in a scratch folder with fresh
// keys) made, and tampered copies; test-vectors/countersigner/README.md says how. The node
// provider runs the same cases in src-main/core/verify-corpus.test.ts (every corpus, both providers).
interface CorpusCase {
  file: string;
  format: string;
  status: string;
  trust?: string;
  error?: string;
  producer_verdict: string;
}
const folder = new URL('../../../test-vectors/countersigner/', import.meta.url);
const corpus = JSON.parse(readFileSync(new URL('cases.json', folder), 'utf8')) as { cases: CorpusCase[] };
const ctx = createVerifyContext(createPortableProvider(), { now: new Date('2026-12-01T00:00:00Z') });

describe('the countersigner corpus (portable provider)', () => {
  it('covers every shape, valid and broken', () => {
    const statuses = new Set(corpus.cases.map((entry) => entry.status));
    expect([...statuses].sort()).toEqual(['INDETERMINATE', 'INVALID', 'MALFORMED', 'MISMATCH', 'PASS', 'UNSUPPORTED']);
    for (const prefix of ['countersign-', 'inclusion-', 'verify-']) {
      expect(corpus.cases.some((entry) => entry.file.startsWith(prefix) && entry.status === 'PASS')).toBe(true);
    }
  });

  it.each(corpus.cases.map((entry) => [entry.file, entry] as const))('%s', (_file, entry) => {
    const report = verifyDocument(readFileSync(new URL(entry.file, folder)), ctx);
    expect(report.format).toBe(entry.format);
    expect(report.status).toBe(entry.status);
    if (entry.trust !== undefined) expect(report.trust.status).toBe(entry.trust);
    if (entry.error !== undefined) expect(report.errors.map((error) => error.code)).toContain(entry.error);
    if (entry.status === 'PASS') expect(entry.producer_verdict).toBe('valid');
  });
});
