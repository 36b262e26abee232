import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { signEnvelope } from '../../src-shared/formats/envelope';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { listAdvertisedKeys, openLedger, type Ledger } from '../ledger/index';
import { createTrustStore } from '../trust/index';
import { importBundle } from './import';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';

// The keys a bundle ships, against the trust store, on a real ledger and real zips: one key id
// names one key (PROTOCOL section 0), and a key pinned for some roles is trusted in those only.

const crypto = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(31);
const otherSeed = new Uint8Array(32).fill(32);
const signerSeed = new Uint8Array(32).fill(33);
const ISSUER = 'did:svc:acme:issuer';
const SIGNER = 'did:svc:acme:bundles';
const requesterSeed = new Uint8Array(32).fill(34);
const operatorSeed = new Uint8Array(32).fill(35);
const REQUESTER = 'did:svc:acme:requester';
const OPERATOR = 'did:svc:acme:operator';
const signer = { seed: signerSeed, keyId: SIGNER };

function envelope(sequence: number): { stem: string; bytes: Uint8Array } {
  const receiptId = `rcp_roles${sequence}`;
  const signed = signEnvelope(
    { v: 'svc-receipt-v1', receipt_id: receiptId, issued_at: '2026-11-01T12:00:00Z', sequence },
    {
      requester: { key_id: REQUESTER, seed: requesterSeed },
      operator: { key_id: OPERATOR, seed: operatorSeed },
      service: { key_id: ISSUER, seed: issuerSeed },
    },
    crypto,
  );
  return { stem: receiptId, bytes: utf8Encode(JSON.stringify(signed)) };
}

describe('importBundle and the keys it ships', () => {
  let directory: string;
  let ledger: Ledger;

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-import-keys-'));
    ledger = openLedger(path.join(directory, 'ledger.sqlite'));
  });
  afterEach(() => {
    ledger.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  async function run(
    keys = [
      keyEntryFor(ISSUER, issuerSeed, crypto),
      keyEntryFor(SIGNER, signerSeed, crypto),
      keyEntryFor(REQUESTER, requesterSeed, crypto),
      keyEntryFor(OPERATOR, operatorSeed, crypto),
    ],
  ) {
    const parts = bundleParts([envelope(1), envelope(2)], { keyId: SIGNER, keys });
    parts.files.set('receipts/classical-1.json', utf8Encode(signClassical({ sequence: 1 }, otherSeed, crypto)));
    parts.manifest.counts = { receipts: 3 };
    const file = path.join(directory, 'bundle.zip');
    fs.writeFileSync(file, zipBundle(parts, signer, crypto));
    return importBundle(ledger, file, { workers: 1 });
  }

  it('does not use a keys file that gives a pinned key_id another key, as one that names a key twice, and says why', async () => {
    const trust = createTrustStore(ledger);
    trust.pin({ key_id: ISSUER, algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(otherSeed) });
    const result = await run();
    const finding = result.findings.find((candidate) => candidate.code === 'keys_invalid');
    expect(finding).toMatchObject({
      code: 'keys_invalid',
      message: `The key file cannot be used at /keys/0/public_key: Key id "${ISSUER}" names different keys in the trust store and in keys/service-keys.json; one key id must name one key.`,
    });
    // Its keys neither check signatures nor are recorded.
    expect(listAdvertisedKeys(ledger.readable)).toEqual([]);
    expect(result.counts.advertisedKeys).toBe(0);
    expect(result.signature.status).toBe('unavailable');
    // The envelopes name the pinned key_id: checked against the pinned key, never PASS.
    expect(result.counts.byStatus.PASS ?? 0).toBe(1);
  });

  it('uses a keys file that repeats pinned keys as they are', async () => {
    const trust = createTrustStore(ledger);
    trust.pin({ key_id: ISSUER, algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(issuerSeed) });
    const result = await run();
    expect(result.findings).toEqual([]);
    expect(result.counts.byStatus).toEqual({ PASS: 3 });
    expect(result.counts.byTrust).toEqual({ trusted: 2, unpinned: 1 });
  });

  it('judges a pinned key by the roles it is pinned for', async () => {
    const trust = createTrustStore(ledger);
    trust.pin({
      key_id: ISSUER,
      algorithm: 'Ed25519',
      public_key: crypto.ed25519PublicKey(issuerSeed),
      roles: ['requester'],
    });
    const result = await run();
    expect(result.counts.byStatus).toEqual({ PASS: 3 });
    // The envelopes' service signatures are by a key pinned for requester only.
    expect(result.counts.byTrust).toEqual({ unpinned: 3 });
  });
});
