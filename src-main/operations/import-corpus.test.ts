import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  b64Encode,
  b64uEncode,
  didKeyFromEd25519,
  ed25519FromDidKey,
  hexEncode,
  utf8Decode,
} from '../../src-shared/crypto';
import { createVerifyContext } from '../../src-shared/verify/context';
import { parseKeyFile } from '../../src-shared/verify/key-file';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { verifyReceiptBytes } from '../core/receipt-facts';
import { receiptPath } from '../evidence/bundle-layout';
import { bundleParts, zipBundle } from '../evidence/test-support';
import { getReceipt, openLedger, type ReceiptRecord } from '../ledger/index';
import { groupByKeys, tryLoadCorpus, type CorpusCase } from '../test-support/conformance-corpus';
import { importBundle, type ImportResult } from './import';

// The conformance corpus made from the real producers (test-vectors/, issue 24) through a bundle
// import into a real SQLite ledger: per format folder and key file, one signed evidence bundle
// (PROTOCOL section 9) holding the cases' documents under receipts/ (named as an export names
// them) and the key file's keys as keys/service-keys.json, imported into a fresh ledger. Each
// receipt must be stored with its case's format, status and trust, and with ledger facts that
// the document bears out: its id, its issuer key id and its issuing instant. A case may state
// those facts (`facts` in cases.json); then they must be exactly those.

const { cases, error } = tryLoadCorpus();
const crypto = createNodeCryptoProvider();
const signerSeed = new Uint8Array(32).fill(0x5d);
const signer = { seed: signerSeed, keyId: didKeyFromEd25519(crypto.ed25519PublicKey(signerSeed)) };

interface Imported {
  /** Each bundle's import, with the cases it held. */
  results: { result: ImportResult; cases: CorpusCase[] }[];
  /** The stored record of each case, by case id. */
  records: Map<string, ReceiptRecord | undefined>;
}

/** Whether the instant (ms) is written in the document: as RFC 3339 to the second, or as epoch seconds or ms. */
function instantWritten(text: string, millis: number): boolean {
  const iso = new Date(millis).toISOString();
  const seconds = Math.floor(millis / 1000);
  return (
    text.includes(iso.slice(0, 19)) ||
    new RegExp(`(^|[^0-9])(${seconds}|${millis})([^0-9]|$)`).test(text) ||
    // Seconds written as any JSON number spelling (a countersigner's 1.7956365573234835e+09).
    [...text.matchAll(/-?\d+(?:\.\d+)?[eE][+-]?\d+/g)].some((match) => Math.floor(Number(match[0])) === seconds) ||
    // An instant written with an offset: compare every RFC 3339 instant of the document.
    [...text.matchAll(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g)].some(
      (match) => Math.floor(Date.parse(match[0]) / 1000) === seconds,
    )
  );
}

/** Whether the key id is written in the document, or is the did:key of an Ed25519 key written in it. */
function issuerWritten(text: string, keyId: string): boolean {
  if (text.includes(keyId)) return true;
  if (!keyId.startsWith('did:key:')) return false;
  let key: Uint8Array;
  try {
    key = ed25519FromDidKey(keyId);
  } catch {
    return false;
  }
  const hex = hexEncode(key);
  return [hex, hex.toUpperCase(), b64uEncode(key), b64Encode(key).replace(/=+$/, '')].some((form) =>
    text.includes(form),
  );
}

function expectFacts(record: ReceiptRecord, entry: CorpusCase): void {
  const text = utf8Decode(entry.bytes);
  const seen = `${entry.id} (${entry.note}) is filed with receipt_id ${record.receipt_id}, issuer ${record.issuer_key_id}, issued_at ${record.issued_at}`;
  if (entry.facts !== undefined) {
    // The extension point: facts the case states.
    if (entry.facts.receipt_id !== undefined) expect(record.receipt_id, seen).toBe(entry.facts.receipt_id);
    if (entry.facts.issuer_key_id !== undefined) expect(record.issuer_key_id, seen).toBe(entry.facts.issuer_key_id);
    if (entry.facts.issued_at !== undefined)
      expect(record.issued_at, seen).toBe(entry.facts.issued_at === null ? null : Date.parse(entry.facts.issued_at));
  }
  // Whatever the case states, every fact recorded is one the document bears out.
  if (record.receipt_id !== null) expect(text, seen).toContain(JSON.stringify(record.receipt_id).slice(1, -1));
  if (record.issuer_key_id !== null && record.issuer_key_id !== record.report.trust.key_id)
    expect(issuerWritten(text, record.issuer_key_id), seen).toBe(true);
  if (record.issued_at !== null) expect(instantWritten(text, record.issued_at), seen).toBe(true);
  // A document filed under no issuer names none, and its verification resolved no key id either
  // (the ledger files a document that names none under the key that verified it).
  if (record.issuer_key_id === null) expect(record.report.trust.key_id ?? null, seen).toBeNull();
}

const groups = groupByKeys(cases);

describe('the conformance corpus through a bundle import', () => {
  let directory: string;
  const imported = new Map<string, Imported>();

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-import-corpus-'));
    let count = 0;
    for (const group of groups) {
      const keys = group.keys === undefined ? undefined : parseKeyFile(group.keys.text, { advertised: true });
      const context = createVerifyContext(crypto, { advertised: keys ?? [] });
      // The ledger knows a receipt by its JCS digest: two documents of one digest (the same
      // members in another order, say) are one receipt. Each goes into a bundle of its own round,
      // imported into a ledger of its own, so every case's own bytes are stored and judged.
      const rounds: {
        documents: Map<string, { stem: string; bytes: Uint8Array }>;
        used: Set<string>;
        cases: CorpusCase[];
      }[] = [];
      const digests = new Map<string, string>();
      for (const entry of group.cases) {
        const facts = verifyReceiptBytes(entry.bytes, context);
        digests.set(entry.id, facts.receipt_sha256);
        let round = rounds.find((candidate) => {
          const held = candidate.documents.get(facts.receipt_sha256);
          return held === undefined || Buffer.from(held.bytes).equals(Buffer.from(entry.bytes));
        });
        if (round === undefined) {
          round = { documents: new Map(), used: new Set(), cases: [] };
          rounds.push(round);
        }
        round.cases.push(entry);
        if (round.documents.has(facts.receipt_sha256)) continue;
        const stem = path.posix.basename(receiptPath(facts.receipt_id, facts.receipt_sha256, round.used), '.json');
        round.documents.set(facts.receipt_sha256, { stem, bytes: entry.bytes });
      }
      const results: Imported['results'] = [];
      const records = new Map<string, ReceiptRecord | undefined>();
      for (const round of rounds) {
        count += 1;
        const parts = bundleParts([...round.documents.values()], {
          keyId: signer.keyId,
          ...(keys === undefined ? {} : { keys }),
        });
        const file = path.join(directory, `bundle-${count}.zip`);
        fs.writeFileSync(file, zipBundle(parts, signer, crypto));
        const ledger = openLedger(path.join(directory, `ledger-${count}.sqlite`));
        try {
          results.push({ result: await importBundle(ledger, file, { workers: 1 }), cases: round.cases });
          for (const entry of round.cases)
            records.set(entry.id, getReceipt(ledger.readable, digests.get(entry.id) as string));
        } finally {
          ledger.close();
        }
      }
      imported.set(group.label, { results, records });
    }
  });
  afterAll(() => {
    if (directory) fs.rmSync(directory, { recursive: true, force: true });
  });

  it('is present and well-formed: at least one case, every cases.json read', () => {
    if (error !== undefined) throw error;
    expect(cases.length).toBeGreaterThan(0);
    expect(groups.reduce((total, group) => total + group.cases.length, 0)).toBe(cases.length);
  });

  it.each(groups.map((group) => [group.label, group] as const))('%s', (label, group) => {
    const run = imported.get(label);
    expect(run, `${label} was not imported`).toBeDefined();
    const { results, records } = run!;
    for (const entry of group.cases) {
      const record = records.get(entry.id);
      expect(record, `${entry.id} was not stored`).toBeDefined();
      const stored = record!;
      const seen = `${entry.id} (${entry.note}) was stored as ${stored.format} ${stored.status}/${stored.trust} ${JSON.stringify(stored.report.errors.map((item) => item.code))}`;
      expect(stored.format, seen).toBe(entry.format);
      expect(stored.status, seen).toBe(entry.status);
      expect(stored.report.status, seen).toBe(entry.status);
      if (entry.trust !== undefined) expect(stored.trust, seen).toBe(entry.trust);
      if (entry.error !== undefined)
        expect(
          stored.report.errors.map((item) => item.code),
          seen,
        ).toContain(entry.error);
      expect(Buffer.from(stored.raw).equals(Buffer.from(entry.bytes)), `${entry.id}: the stored bytes differ`).toBe(
        true,
      );
      expectFacts(stored, entry);
    }
    // The bundle itself is sound: its signature verifies, its keys are used, and the only
    // findings are the receipts that do not pass.
    for (const { result, cases: held } of results) {
      expect(result.signature.status, JSON.stringify(result.signature)).toBe('valid');
      const notPass = new Set(
        held.filter((entry) => entry.status !== 'PASS').map((entry) => records.get(entry.id)?.receipt_sha256),
      );
      expect(result.findings.filter((finding) => finding.code !== 'receipt_not_pass')).toEqual([]);
      expect(result.findingCounts.receipt_not_pass ?? 0).toBe(notPass.size);
    }
  });
});
