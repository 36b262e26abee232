import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { renderReportHtml, REPORT_MEMBERS, verifyReportHtml, type SignedReport } from '../../src-shared/formats/report';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';
import { AUDITOR_KEY_PATH } from '../report/auditor-key';
import { importEvidence } from './evidence';
import {
  createReport,
  diffReports,
  makeReport,
  readKeptReport,
  readVerifiedReport,
  trustStoreAsOf,
  listReports,
} from './report';
import { pinKey, revokeKey, unpinKey } from './trust';
import { listBundles, updateBundle } from '../ledger';
import type { LogCompleteness } from '../../src-shared/api/logs-contract';
import { openWorkspace, workspaceVerifyContext, type Workspace } from './workspace';

const node = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(61);
const bundleSeed = new Uint8Array(32).fill(62);
const ISSUER = 'did:svc:acme:report-issuer';
const RECEIPTS = 4;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function seeded(directory: string): Promise<Workspace> {
  const workspace = openWorkspace(path.join(directory, 'home'));
  const receipts = Array.from({ length: RECEIPTS }, (_, index) => ({
    stem: `r${index}`,
    bytes: utf8Encode(signClassical({ sequence: index }, issuerSeed, node)),
  }));
  const parts = bundleParts(receipts, {
    keyId: 'did:svc:acme:bundler',
    keys: [keyEntryFor('did:svc:acme:bundler', bundleSeed, node)],
  });
  const bundle = path.join(directory, 'bundle.zip');
  fs.writeFileSync(bundle, zipBundle(parts, { seed: bundleSeed, keyId: 'did:svc:acme:bundler' }, node));
  await importEvidence(workspace, bundle, { fileName: 'bundle.zip' });
  return workspace;
}

function pin(workspace: Workspace, extra: { not_after?: string } = {}): void {
  pinKey(workspace, { key_id: ISSUER, algorithm: 'Ed25519', public_key: node.ed25519PublicKey(issuerSeed), ...extra });
}

function trusts(report: SignedReport): string[] {
  return [...new Set(report.receipts.map((row) => row.trust))];
}

describe('audit reports (operations)', () => {
  let directory: string;
  let workspace: Workspace;

  beforeEach(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-report-'));
    workspace = await seeded(directory);
  });
  afterEach(() => {
    workspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('makes a signed report with every section, kept in the data folder and audited', async () => {
    const made = await createReport(workspace, {});
    const text = readKeptReport(workspace, made.report_id);
    const { report, verification } = readVerifiedReport(text, workspaceVerifyContext(workspace), 'kept');
    expect(verification.status).toBe('PASS');
    expect(Object.keys(report).sort()).toEqual([...REPORT_MEMBERS].sort());
    expect(report.receipts).toHaveLength(RECEIPTS);
    expect(report.counts.by_status.PASS).toBe(RECEIPTS);
    expect(report.counts.by_trust.unpinned).toBe(RECEIPTS);
    expect(report.counts.by_anchor.none).toBe(RECEIPTS);
    expect(report.inputs.bundles).toHaveLength(1);
    expect(report.inputs.bundles[0]?.signer_key_id).toBe('did:svc:acme:bundler');
    expect(report.claim_limits.join(' ')).toMatch(/not authenticated/);
    expect(report.signer.key_id).toMatch(/^did:key:z6Mk/);
    expect(listReports(workspace).map((listing) => listing.report_id)).toEqual([made.report_id]);
    // The auditor key: 0600 in a 0700 folder, and the same key for the next report.
    const keyFile = path.join(workspace.dataDirectory, AUDITOR_KEY_PATH);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(keyFile)).mode & 0o777).toBe(0o700);
    expect(makeReport(workspace).report.signer.key_id).toBe(report.signer.key_id);
  });

  it('states the completeness of each bundle with log evidence, from what its import recorded', async () => {
    const [bundle] = listBundles(workspace.ledger.readable, {}).rows;
    const log: LogCompleteness = {
      status: 'incomplete',
      origin: 'receipts.test/log/tenants/acme',
      key_name: 'receipts.test/log',
      tree_size: 9,
      root_hex: 'c'.repeat(64),
      signer: 'advertised',
      period: { since: '2026-11-01T00:00:00.000Z', until: null },
      first_index: 2,
      last_index: 8,
      missing: [5],
      missing_count: 1,
      stale: false,
      consistency: 'consistent',
      sentence: 'incomplete: 1 leaf missing (index 5)',
    };
    updateBundle(workspace.ledger.writable, bundle!.id, { log });
    const made = await createReport(workspace, {});
    const text = readKeptReport(workspace, made.report_id);
    const { report, verification } = readVerifiedReport(text, workspaceVerifyContext(workspace), 'kept');
    expect(verification.status).toBe('PASS');
    expect(report.completeness).toEqual([
      {
        bundle_sha256: bundle!.bundle_sha256,
        tenant_id: bundle!.tenant_id,
        origin: 'receipts.test/log/tenants/acme',
        period: { since: '2026-11-01T00:00:00.000Z', until: null },
        status: 'incomplete',
        tree_size: 9,
        first_index: 2,
        last_index: 8,
        missing_count: 1,
        missing: [5],
        stale: false,
        signer: 'advertised',
        consistency: 'consistent',
        sentence: 'incomplete: 1 leaf missing (index 5)',
      },
    ]);
    // A bundle without log files (log null) or whose log evidence is absent gives no member.
    updateBundle(workspace.ledger.writable, bundle!.id, { log: { ...log, status: 'absent' } });
    expect(makeReport(workspace).report.completeness).toBeUndefined();
  });

  it('refuses an as-of instant that is malformed or in the future, writing nothing', async () => {
    expect(() => makeReport(workspace, { asOf: 'yesterday' })).toThrow(/as-of instant must be a timestamp/);
    expect(() => makeReport(workspace, { asOf: '2999-01-01T00:00:00Z' })).toThrow(/in the future/);
    await expect(createReport(workspace, { asOf: 'nope' })).rejects.toThrow(/as-of/);
    expect(listReports(workspace)).toEqual([]);
  });

  it('judges trust as of an instant: pinned later is not trusted, revoked later still is', async () => {
    const beforePin = new Date().toISOString();
    await sleep(15);
    pin(workspace);
    await sleep(15);
    const afterPin = new Date().toISOString();
    await sleep(15);
    revokeKey(workspace, ISSUER, 'compromised');
    await sleep(15);
    expect(trusts(makeReport(workspace).report)).toEqual(['revoked']);
    expect(trusts(makeReport(workspace, { asOf: afterPin }).report)).toEqual(['trusted']);
    expect(trusts(makeReport(workspace, { asOf: beforePin }).report)).toEqual(['unpinned']);
    expect(trustStoreAsOf(workspace, Date.parse(afterPin)).map((key) => [key.key_id, key.status])).toEqual([
      [ISSUER, 'pinned'],
    ]);
    expect(makeReport(workspace, { asOf: afterPin }).report.trust_snapshot.keys.map((key) => key.status)).toEqual([
      'pinned',
    ]);
  });

  it('judges trust as of an instant by the roles a key was pinned for then', async () => {
    pinKey(workspace, {
      key_id: ISSUER,
      algorithm: 'Ed25519',
      public_key: node.ed25519PublicKey(issuerSeed),
      roles: ['requester'],
    });
    await sleep(15);
    const afterPin = new Date().toISOString();
    await sleep(15);
    expect(trustStoreAsOf(workspace, Date.parse(afterPin))).toEqual([
      expect.objectContaining({ key_id: ISSUER, roles: ['requester'] }),
    ]);
    // The classical receipts sign as the service: pinned for requester only, they were never trusted.
    expect(trusts(makeReport(workspace, { asOf: afterPin }).report)).toEqual(['unpinned']);
    expect(trusts(makeReport(workspace).report)).toEqual(['unpinned']);
  });

  it('keeps in the trust snapshot the roles a key is pinned for, in every form, and refuses a snapshot with bad roles', async () => {
    pinKey(workspace, {
      key_id: ISSUER,
      algorithm: 'Ed25519',
      public_key: node.ed25519PublicKey(issuerSeed),
      roles: ['requester', 'operator'],
    });
    const made = await createReport(workspace, {});
    const text = readKeptReport(workspace, made.report_id);
    const { report } = readVerifiedReport(text, workspaceVerifyContext(workspace), 'kept');
    expect(report.trust_snapshot.keys).toEqual([
      expect.objectContaining({ key_id: ISSUER, status: 'pinned', roles: ['requester', 'operator'] }),
    ]);
    // The snapshot hash covers the roles: the report verifies, and the HTML form shows them.
    const html = Array.from(renderReportHtml(report)).join('');
    expect(html).toContain('<td>pinned for requester, operator</td>');
    expect(verifyReportHtml(html, workspaceVerifyContext(workspace)).status).toBe('PASS');
    for (const roles of [['nobody'], [], 'requester', ['requester', 'requester']]) {
      const changed = JSON.parse(text) as { trust_snapshot: { keys: { roles?: unknown }[] } };
      changed.trust_snapshot.keys[0]!.roles = roles;
      const verification = verifyDocument(utf8Encode(JSON.stringify(changed)), workspaceVerifyContext(workspace));
      expect(verification.status, JSON.stringify(roles)).toBe('MALFORMED');
      expect(verification.errors.map((error) => error.path)).toContain('/trust_snapshot/keys/0/roles');
    }
    // A key pinned for every role carries no roles member, as before.
    unpinKey(workspace, ISSUER);
    pin(workspace);
    expect(makeReport(workspace).report.trust_snapshot.keys).toEqual([
      expect.not.objectContaining({ roles: expect.anything() }),
    ]);
  });

  it('diffs two reports with the reason the audit log records: pinned, revoked', async () => {
    const first = makeReport(workspace).report;
    await sleep(15);
    pin(workspace);
    await sleep(15);
    const second = makeReport(workspace).report;
    await sleep(15);
    revokeKey(workspace, ISSUER, 'compromised');
    await sleep(15);
    const third = makeReport(workspace).report;
    const pinned = diffReports(workspace, first, second);
    expect(pinned.added).toEqual([]);
    expect(pinned.removed).toEqual([]);
    expect(pinned.changed).toHaveLength(RECEIPTS);
    expect(pinned.changed[0]).toMatchObject({ field: 'trust', from: 'unpinned', to: 'trusted' });
    expect(pinned.changed[0]?.reason).toMatch(/^pinned at /);
    const revoked = diffReports(workspace, second, third);
    expect(revoked.changed.map((change) => [change.from, change.to])).toEqual(
      Array(RECEIPTS).fill(['trusted', 'revoked']),
    );
    expect(revoked.changed[0]?.reason).toMatch(/^revoked at /);
  });

  it('diffs an expiry: the key’s window closed between the two reports', async () => {
    const notAfter = new Date(Date.now() + 400).toISOString();
    pin(workspace, { not_after: notAfter });
    await sleep(30);
    const inside = new Date().toISOString();
    await sleep(450);
    const before = makeReport(workspace, { asOf: inside }).report;
    const after = makeReport(workspace).report;
    expect(trusts(before)).toEqual(['trusted']);
    expect(trusts(after)).toEqual(['expired']);
    const diff = diffReports(workspace, before, after);
    expect(diff.changed.map((change) => [change.field, change.from, change.to, change.reason])).toEqual(
      Array(RECEIPTS).fill(['trust', 'trusted', 'expired', 'key expired']),
    );
  });

  it('diffs receipts added and removed', async () => {
    const all = makeReport(workspace).report;
    const some = makeReport(workspace, {
      filters: { text: all.receipts[0]?.receipt_sha256.slice(0, 12) ?? '' },
    }).report;
    expect(some.receipts).toHaveLength(1);
    const diff = diffReports(workspace, some, all);
    expect(diff.added).toHaveLength(RECEIPTS - 1);
    expect(diff.removed).toEqual([]);
    expect(diffReports(workspace, all, some).removed).toHaveLength(RECEIPTS - 1);
  });
});
