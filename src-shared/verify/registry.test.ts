import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../crypto';
import { fromPlain } from '../json';
import type { JsonValue } from '../json/types';
import type { FormatModule } from './format-module';
import { catalogueModules, formatIssuers, formatModules, registryRows } from './registry';
import { createSampleKit, type SampleSet } from './sample-kit';

// The one table a new format is added to: a format that forgets a member fails here.
const crypto = createPortableProvider();

const MEMBERS: readonly (keyof FormatModule)[] = [
  'name',
  'owns',
  'detect',
  'verify',
  'signedContent',
  'facts',
  'issuers',
  'samples',
];

/** Odd shapes every facts() must survive. */
const ODD: JsonValue[] = [
  null,
  7,
  'text',
  [],
  {},
  { receipt: 'x', receipt_id: 5, issued_at: 12, ts: 'soon', i: 1e300, key_id: [] },
  { envelope: [], signatures: { service: 'x' }, public_key_hex: 'zz', countersigner_public_key_b64: 1 },
  { receipt: { id: null, k: {} }, contract_id: { a: 1 }, signed_payload: 'x', signature: 'x' },
];

/** Formats without issuers: audit reports, and the formats only other producers make. */
const ISSUES_NOTHING: readonly string[] = ['report', 'hahs', 'smsh-stamp', 'spectral'];

/** A format's sample folders: one per issuer, or the format's own name for a producer's format. */
function sampleFolders(module: FormatModule): string[] {
  if (module.issuers.length > 0) return module.issuers.map((issuer) => issuer.name);
  return module.name === 'report' ? [] : [module.name];
}

function samplesOf(module: FormatModule): SampleSet {
  // Sealed samples wrap the classical ones, so every module's samples are made in table order.
  const set: SampleSet = { files: [], keys: [], secrets: [] };
  const kit = createSampleKit(set, crypto);
  for (const candidate of catalogueModules()) {
    const before = set.files.length;
    candidate.samples(kit);
    if (candidate === module) return { files: set.files.slice(before), keys: set.keys, secrets: set.secrets };
  }
  throw new Error(`${module.name} is not in the table`);
}

describe('the format registry', () => {
  it('lists every module once, with a unique place in detection', () => {
    const rows = registryRows();
    expect(new Set(rows.map((row) => row.module)).size).toBe(rows.length);
    expect(new Set(rows.map((row) => row.detection)).size).toBe(rows.length);
    expect(new Set(formatModules())).toEqual(new Set(catalogueModules()));
    expect(formatModules().map((module) => module.name)).toEqual([
      'sealed',
      'hahs',
      'smsh-stamp',
      'spectral',
      'wearable/r2.0.0',
      'countersigner',
      'classical',
      'envelope/svc-receipt-v1',
      'profile',
      'sigr-chain-pq',
      'typed-pq',
      'typed',
      'report',
    ]);
  });

  it.each(registryRows().map((row) => [row.module.name, row.module] as const))(
    '%s provides every member',
    (_name, module) => {
      for (const member of MEMBERS) expect(module[member], `${module.name}.${member}`).toBeDefined();
      for (const member of ['owns', 'detect', 'verify', 'signedContent', 'facts', 'samples'] as const) {
        expect(typeof module[member], `${module.name}.${member}`).toBe('function');
      }
      // Only a format the program makes from the ledger itself (audit reports) and the formats only
      // other producers make (PROTOCOL section 14) issue nothing from caller fields.
      if (!ISSUES_NOTHING.includes(module.name)) {
        expect(module.issuers.length, `${module.name} issues nothing`).toBeGreaterThan(0);
      } else {
        expect(module.issuers, module.name).toEqual([]);
      }
      for (const issuer of module.issuers) {
        expect(issuer.help.length, issuer.name).toBeGreaterThan(0);
        expect(typeof issuer.issue, issuer.name).toBe('function');
        // A format signs with a key or encrypts with a secret, never neither.
        expect(issuer.keyAlgorithm !== undefined || issuer.secret, issuer.name).toBe(true);
      }
    },
  );

  it.each(registryRows().map((row) => [row.module.name, row.module] as const))(
    '%s makes samples it recognizes and owns: valid, tampered, forged and malformed ones per issuer',
    (_name, module) => {
      const { files } = samplesOf(module);
      const folders = new Set(files.map((file) => file.file.split('/')[0]));
      expect([...folders].sort()).toEqual(sampleFolders(module).sort());
      for (const folder of folders) {
        for (const kind of ['valid', 'tampered', 'forged', 'malformed']) {
          expect(
            files.some((file) => file.file === `${folder}/${kind}.json`),
            `${folder}/${kind}`,
          ).toBe(true);
        }
      }
      for (const file of files.filter((candidate) => candidate.format !== 'unknown')) {
        expect(module.owns(file.format), file.file).toBe(true);
      }
    },
  );

  it.each(registryRows().map((row) => [row.module.name, row.module] as const))(
    '%s facts() never throws and says nothing of odd shapes',
    (_name, module) => {
      for (const value of ODD) {
        const facts = module.facts(fromPlain(value));
        expect(Object.keys(facts).sort()).toEqual(['issued_at', 'issuer_key_id', 'receipt_id']);
        expect(facts.issued_at).toBeNull();
      }
    },
  );

  it('names every issuer once', () => {
    const names = formatIssuers().map((issuer) => issuer.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
