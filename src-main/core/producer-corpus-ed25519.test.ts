import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import type { KeyEntry } from '../../src-shared/verify/context';
import { createVerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from './node-crypto-provider';

// The HAHS, SMSH-Stamp and Spectral corpora (test-vectors/<dir>/cases.json: documents the real
// producers' code made, labelled by their own verifiers) get their expected status, format and
// trust on OpenSSL and on the portable provider, with identical reports.
interface CorpusCase {
  file: string;
  format: string;
  status: string;
  trust?: string;
  keys?: string;
  error?: string;
}

const NOW = new Date('2026-11-25T20:00:00.000Z');
const providers: [string, CryptoProvider][] = [
  ['node', createNodeCryptoProvider()],
  ['portable', createPortableProvider()],
];

function corpusFile(dir: string, file: string): Buffer {
  return readFileSync(fileURLToPath(new URL(`../../test-vectors/${dir}/${file}`, import.meta.url)));
}

/**
 * A corpus key file read as plain data: its ids are the producers' opaque ones (`test-key-001`),
 * which the project-wide key-file rule accepts once PROTOCOL section 0's wider key ids land.
 */
function corpusKeys(dir: string, file: string | undefined): KeyEntry[] {
  if (file === undefined) return [];
  const parsed = JSON.parse(corpusFile(dir, file).toString('utf8')) as {
    keys: { key_id: string; algorithm: 'Ed25519'; public_key: string }[];
  };
  return parsed.keys.map((key) => ({
    key_id: key.key_id,
    algorithm: key.algorithm,
    public_key: b64uDecode(key.public_key),
  }));
}

const corpora = ['hahs', 'smsh-stamp', 'spectral'].map((dir) => {
  const cases = (JSON.parse(corpusFile(dir, 'cases.json').toString('utf8')) as { cases: CorpusCase[] }).cases;
  return [dir, cases] as const;
});

describe.each(corpora)('the %s corpus', (dir, cases) => {
  it('lists valid documents, a content change, a signature change and another version', () => {
    const statuses = new Set(cases.map((entry) => entry.status));
    for (const status of ['PASS', 'INVALID', 'UNSUPPORTED', 'MALFORMED']) expect(statuses).toContain(status);
  });

  it.each(providers)('every case gets its expected status, format and trust on the %s provider', (_name, crypto) => {
    for (const entry of cases) {
      const ctx = createVerifyContext(crypto, { advertised: corpusKeys(dir, entry.keys), now: NOW });
      const report = verifyDocument(corpusFile(dir, entry.file), ctx);
      expect([entry.file, report.format, report.status], report.errors.map((e) => e.message).join('; ')).toEqual([
        entry.file,
        entry.format,
        entry.status,
      ]);
      expect([entry.file, report.trust.status]).toEqual([entry.file, entry.trust ?? 'not_applicable']);
      if (entry.error !== undefined) {
        expect(
          report.errors.map((error) => error.code),
          entry.file,
        ).toContain(entry.error);
      }
    }
  });

  it('gives identical reports on both providers', () => {
    for (const entry of cases) {
      const reports = providers.map(([, crypto]) =>
        verifyDocument(
          corpusFile(dir, entry.file),
          createVerifyContext(crypto, { advertised: corpusKeys(dir, entry.keys), now: NOW }),
        ),
      );
      expect(reports[1], entry.file).toEqual(reports[0]);
    }
  });
});
