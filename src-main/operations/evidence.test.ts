/**
 * importEvidence: the import bound to a workspace. A bundle's verified checkpoint is recorded
 * among those the workstation has seen of its log (log-checkpoints.ts), and the completeness
 * says how it stands with them: two bundles whose checkpoints of one log disagree give the
 * second a `log_split_view` finding (docs/logs.md, "What the import checks").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { didKeyFromEd25519, utf8Encode } from '../../src-shared/crypto';
import {
  logKeyEntry,
  makeLogEvidence,
  withKeyEntries,
  type LogEvidenceSpec,
} from '../../src-shared/evidence/log-test-support';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';
import { getBundle } from '../ledger/index';
import { importEvidence } from './evidence';
import { standardReceiptFile } from './import-test-support';
import { listLogs } from './log-checkpoints';
import { openWorkspace, type Workspace } from './workspace';

const crypto = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(31);
const ISSUER = 'did:svc:acme:k1';
const signerSeed = new Uint8Array(32).fill(32);
const SIGNER = 'did:svc:acme:bundles';
const logKey = { seed: new Uint8Array(32).fill(33), name: 'evroom.test/log' };
const keys = [keyEntryFor(ISSUER, issuerSeed, crypto), keyEntryFor(SIGNER, signerSeed, crypto)];
const logged = Array.from({ length: 9 }, (_, index) => standardReceiptFile(index, issuerSeed, ISSUER, crypto));

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function workspace(): { workspace: Workspace; directory: string } {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-evidence-'));
  const opened = openWorkspace(path.join(directory, 'home'));
  cleanups.push(() => {
    opened.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  return { workspace: opened, directory };
}

/**
 * A bundle of the period 12:00:02 to 12:00:06 (leaves 2 to 5) of a log of the given receipts,
 * its keys file advertising `advertised` as the log key.
 */
function logBundle(
  directory: string,
  log: readonly Uint8Array[],
  changes: Partial<LogEvidenceSpec> = {},
  advertised: { key: typeof logKey; keyId: string } = { key: logKey, keyId: 'did:svc:acme:log' },
): string {
  const fixture = makeLogEvidence({
    crypto,
    key: logKey,
    tenant: 'acme',
    log,
    period: { since: '2026-11-01T12:00:02Z', until: '2026-11-01T12:00:06Z' },
    first: 2,
    last: 5,
    before: 1,
    after: 6,
    ...changes,
  });
  const parts = bundleParts(logged.slice(2, 6), { keyId: SIGNER, keys });
  const keysText = new TextDecoder().decode(parts.files.get('keys/service-keys.json'));
  parts.files.set(
    'keys/service-keys.json',
    utf8Encode(withKeyEntries(keysText, [logKeyEntry(crypto, advertised.key, advertised.keyId)])),
  );
  parts.files.set('log/checkpoint.txt', utf8Encode(fixture.checkpoint));
  parts.files.set('log/proofs.json', utf8Encode(JSON.stringify(fixture.proofs)));
  const file = path.join(directory, `bundle-${Math.random().toString(16).slice(2)}.zip`);
  fs.writeFileSync(file, zipBundle(parts, { seed: signerSeed, keyId: SIGNER }, crypto));
  return file;
}

describe('importEvidence and the checkpoints seen', () => {
  it('records a bundle’s checkpoint and checks the next one against it', async () => {
    const { workspace: opened, directory } = workspace();
    const log = logged.map((receipt) => receipt.bytes);
    const first = await importEvidence(opened, logBundle(directory, log.slice(0, 8)), { workers: 1 });
    expect(first.findings).toEqual([]);
    expect(first.log).toMatchObject({ status: 'complete', consistency: 'consistent' });
    expect(getBundle(opened.ledger.readable, first.bundle.id)?.log).toEqual(first.log);
    // The log grew to 9; this bundle proves its checkpoint consistent with size 8.
    const grown = await importEvidence(opened, logBundle(directory, log, { consistentWith: [8] }), { workers: 1 });
    expect(grown.findings).toEqual([]);
    expect(grown.log).toMatchObject({ status: 'complete', tree_size: 9, consistency: 'consistent' });
    expect(listLogs(opened).map((view) => [view.origin, view.checkpoints, view.consistency])).toEqual([
      ['evroom.test/log/tenants/acme', 2, 'consistent'],
    ]);
  });

  it('gives a split view when two bundles’ checkpoints of one log disagree', async () => {
    const { workspace: opened, directory } = workspace();
    const log = logged.map((receipt) => receipt.bytes).slice(0, 8);
    const first = await importEvidence(opened, logBundle(directory, log), { workers: 1 });
    expect(first.findings).toEqual([]);
    // The same size, another root: leaf 7 is another receipt.
    const forked = [...log.slice(0, 7), standardReceiptFile(40, issuerSeed, ISSUER, crypto).bytes];
    const second = await importEvidence(opened, logBundle(directory, forked), { workers: 1 });
    expect(second.findings.map((finding) => finding.code)).toEqual(['log_split_view']);
    expect(second.log).toMatchObject({ status: 'complete', consistency: 'split_view' });
    expect(getBundle(opened.ledger.readable, second.bundle.id)).toMatchObject({
      log: { consistency: 'split_view' },
      findings: [{ code: 'log_split_view' }],
    });
  });

  it('gives no split view for a forged bundle signed by a key of its own under the pinned log key’s name', async () => {
    const { workspace: opened, directory } = workspace();
    const publicKey = crypto.ed25519PublicKey(logKey.seed);
    opened.trust.pin({ key_id: didKeyFromEd25519(publicKey), algorithm: 'Ed25519', public_key: publicKey });
    const log = logged.map((receipt) => receipt.bytes).slice(0, 8);
    const first = await importEvidence(opened, logBundle(directory, log), { workers: 1 });
    expect(first.findings).toEqual([]);
    expect(first.log).toMatchObject({ signer: 'pinned', consistency: 'consistent' });
    // The forger: the real origin and size, another root, signed as the log's key name by a key
    // the bundle itself advertises.
    const forger = { ...logKey, seed: new Uint8Array(32).fill(35) };
    const forked = [...log.slice(0, 7), standardReceiptFile(40, issuerSeed, ISSUER, crypto).bytes];
    const forged = await importEvidence(
      opened,
      logBundle(directory, forked, { key: forger }, { key: forger, keyId: 'did:svc:acme:forged' }),
      { workers: 1 },
    );
    expect(forged.findings.map((finding) => finding.code)).not.toContain('log_split_view');
    expect(forged.log).toMatchObject({ status: 'complete', signer: 'advertised', consistency: 'consistent' });
    expect(listLogs(opened)).toMatchObject([
      { origin: 'evroom.test/log/tenants/acme', consistency: 'consistent', signer: 'pinned', keys: 2, checkpoints: 2 },
    ]);
    // A real split view, by the pinned key, is still one.
    const real = await importEvidence(opened, logBundle(directory, forked), { workers: 1 });
    expect(real.findings.map((finding) => finding.code)).toEqual(['log_split_view']);
    expect(listLogs(opened)).toMatchObject([{ consistency: 'split_view', keys: 2 }]);
  });

  it('records no checkpoint whose signer is unknown', async () => {
    const { workspace: opened, directory } = workspace();
    const log = logged.map((receipt) => receipt.bytes).slice(0, 8);
    const parts = logBundle(directory, log, { key: { ...logKey, seed: new Uint8Array(32).fill(34) } });
    const result = await importEvidence(opened, parts, { workers: 1 });
    expect(result.findings.map((finding) => finding.code)).toContain('log_key_unknown');
    expect(result.log?.consistency).toBeUndefined();
    expect(listLogs(opened)).toEqual([]);
  });
});
