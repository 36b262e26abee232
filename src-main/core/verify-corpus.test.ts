import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../src-shared/crypto';
import { COUNTERSIGNER_OPTIONAL_INPUTS } from '../../src-shared/formats/countersigner/verify';
import { createVerifyContext } from '../../src-shared/verify/context';
import { parseKeyFile } from '../../src-shared/verify/key-file';
import type { Report } from '../../src-shared/verify/report';
import { verifyDocument } from '../../src-shared/verify/verify';
import { tryLoadCorpus, type CorpusCase } from '../test-support/conformance-corpus';
import { createNodeCryptoProvider } from './node-crypto-provider';

// The conformance corpus made from the real producers (test-vectors/, issue 24) through the
// library on both providers: the portable one (what the browser verifier runs) and node:crypto
// (the CLI, the service, the import). Each case's key file is given as `evroom verify --keys`
// gives it: keys that check signatures and confer no trust.

const { corpus, cases, error } = tryLoadCorpus();
const node = createNodeCryptoProvider();
const portable = createPortableProvider();
const now = new Date();

function verifyWith(entry: CorpusCase, crypto: typeof node): Report {
  const advertised = entry.keys === undefined ? [] : parseKeyFile(entry.keys.text, { advertised: true });
  return verifyDocument(entry.bytes, createVerifyContext(crypto, { advertised, now }));
}

/** What a report must say for a case; shared wording for every door's failures. */
function expectCase(report: Report, entry: CorpusCase, door: string): void {
  const seen = `${door}: ${entry.id} (${entry.note}) gave ${report.format} ${report.status}/${report.trust.status} ${JSON.stringify(report.errors.map((item) => item.code))}`;
  expect(report.format, seen).toBe(entry.format);
  expect(report.status, seen).toBe(entry.status);
  if (entry.trust !== undefined) expect(report.trust.status, seen).toBe(entry.trust);
  if (entry.error !== undefined)
    expect(
      report.errors.map((item) => item.code),
      seen,
    ).toContain(entry.error);
  // PASS never hides a failing check or an error. The one exception is PROTOCOL 5's, as in the
  // conformance cases: a countersigner record's optional inputs (the record, the audit path, the
  // previous entry) are listed `unavailable` when absent, and the document still PASSes.
  if (report.status === 'PASS') {
    expect(report.errors, seen).toEqual([]);
    const optional = report.format === 'countersigner' ? COUNTERSIGNER_OPTIONAL_INPUTS : [];
    expect(
      report.checks.filter(
        (check) =>
          check.status !== 'pass' &&
          check.status !== 'unchecked' &&
          !(check.status === 'unavailable' && optional.includes(check.id)),
      ),
      seen,
    ).toEqual([]);
  }
}

describe('the conformance corpus through the library, on both crypto providers', () => {
  it('is present and well-formed: at least one case, every cases.json read', () => {
    if (error !== undefined) throw error;
    expect(cases.length).toBeGreaterThan(0);
    expect(corpus?.manifests.every((manifest) => manifest.cases.length > 0)).toBe(true);
  });

  it('holds, for each producer, a valid document, a content change and a signature change', () => {
    // A content change is MISMATCH, or INVALID where the format binds content only by the
    // signature; a signature change is INVALID.
    for (const manifest of corpus?.manifests ?? []) {
      const statuses = new Set(manifest.cases.map((entry) => entry.status));
      expect([manifest.formatDir, statuses.has('PASS'), statuses.has('INVALID')]).toEqual([
        manifest.formatDir,
        true,
        true,
      ]);
    }
  });

  it.each(cases.map((entry) => [entry.id, entry] as const))('%s', (_id, entry) => {
    const viaNode = verifyWith(entry, node);
    expectCase(viaNode, entry, 'node provider');
    const viaPortable = verifyWith(entry, portable);
    expectCase(viaPortable, entry, 'portable provider');
    expect(viaPortable, `${entry.id}: the portable provider's report differs from node's`).toEqual(viaNode);
  });
});
