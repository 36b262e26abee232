import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../src-shared/crypto';
import { corpusKeys, type TypedPqCorpus } from '../../src-shared/formats/typed-pq/corpus';
import { createVerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from './node-crypto-provider';

// The real producer's typed-pq corpus (test-vectors/typed-pq) on OpenSSL's provider: the same
// outcomes as cases.json says and as the portable provider gives (src-shared's corpus test).
const dir = fileURLToPath(new URL('../../test-vectors/typed-pq/', import.meta.url));
const read = (file: string): string => readFileSync(dir + file, 'utf8');
const corpus = JSON.parse(read('cases.json')) as TypedPqCorpus;
const node = createNodeCryptoProvider();
const portable = createPortableProvider();

describe('typed-pq corpus from the real producer (node provider)', () => {
  it.each(corpus.cases.map((entry) => [`${entry.file}${entry.keys ? ` + ${entry.keys}` : ''}`, entry] as const))(
    '%s',
    (_name, entry) => {
      const advertised = entry.keys ? corpusKeys(read(entry.keys)) : [];
      const now = new Date('2026-11-25T00:00:00.000Z');
      const report = verifyDocument(read(entry.file), createVerifyContext(node, { advertised, now }));
      expect(report.format).toBe(entry.format);
      expect(report.status, JSON.stringify(report.errors)).toBe(entry.status);
      if (entry.trust !== undefined) expect(report.trust.status).toBe(entry.trust);
      if (entry.error !== undefined) expect(report.errors.map((error) => error.code)).toContain(entry.error);
      expect(verifyDocument(read(entry.file), createVerifyContext(portable, { advertised, now }))).toEqual(report);
    },
  );
});
