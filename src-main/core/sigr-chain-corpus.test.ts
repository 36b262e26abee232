import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../src-shared/crypto';
import { createVerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from './node-crypto-provider';

// The SiGR chain corpus (test-vectors/sigr-chain/) on OpenSSL's provider: the statuses of
// cases.json, and reports identical to the portable provider's
// (src-shared/formats/sigr-chain-pq/corpus.test.ts runs the portable one against cases.json).
interface CorpusCase {
  file: string;
  format: string;
  status: string;
  trust?: string;
  error?: string;
}
const folder = fileURLToPath(new URL('../../test-vectors/sigr-chain/', import.meta.url));
const { cases } = JSON.parse(readFileSync(`${folder}cases.json`, 'utf8')) as { cases: CorpusCase[] };
const node = createVerifyContext(createNodeCryptoProvider(), { now: new Date('2026-12-01T00:00:00.000Z') });
const portable = { ...node, crypto: createPortableProvider() };

describe('the SiGR chain corpus on the node provider', () => {
  it.each(cases.map((entry) => [entry.file, entry] as const))('%s', (_file, entry) => {
    const bytes = readFileSync(`${folder}${entry.file}`);
    const report = verifyDocument(bytes, node);
    expect(report.format).toBe(entry.format);
    expect(report.status).toBe(entry.status);
    if (entry.trust !== undefined) expect(report.trust.status).toBe(entry.trust);
    if (entry.error !== undefined) expect(report.errors.map((error) => error.code)).toContain(entry.error);
    expect(verifyDocument(bytes, portable)).toEqual(report);
  });
});
