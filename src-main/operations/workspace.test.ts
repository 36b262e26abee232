import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ledgerFileIn, MIGRATIONS, openLedger, openLedgerReadOnly } from '../ledger';
import { pinKey, unpinKey } from './trust';
import { createTenant } from './service-admin';
import { workspaceServiceStore } from './service-store';
import { openWorkspace, readTrustStore, workspaceTrustKeys, workspaceVerifyContext, type Workspace } from './workspace';

describe('workspace', () => {
  let home: string;
  let workspace: Workspace;

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-workspace-'));
    workspace = openWorkspace(home);
  });
  afterEach(() => {
    workspace.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('makes the data folder 0700 and reads no trust store where there is no ledger', () => {
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    expect(readTrustStore(path.join(home, 'elsewhere'))).toEqual([]);
    expect(fs.existsSync(path.join(home, 'elsewhere'))).toBe(false);
  });

  it('opens the ledger with the page cache asked for (64 MiB by default)', () => {
    expect(workspace.ledger.writable.pragma('cache_size', { simple: true })).toBe(-64 * 1024);
    const small = openWorkspace(path.join(home, 'small'), { ledgerCacheMiB: 4 });
    try {
      expect(small.ledger.writable.pragma('cache_size', { simple: true })).toBe(-4 * 1024);
      expect(small.ledger.readable.pragma('cache_size', { simple: true })).toBe(-4 * 1024);
    } finally {
      small.close();
    }
  });

  it('reads the trust store of a ledger an earlier version made, upgrading it first', () => {
    const older = path.join(home, 'older');
    fs.mkdirSync(older, { mode: 0o700 });
    openLedger(ledgerFileIn(older), { migrations: MIGRATIONS.slice(0, 3) }).close();
    expect(() => openLedgerReadOnly(ledgerFileIn(older))).toThrow(/needs upgrading/);
    expect(readTrustStore(older)).toEqual([]);
    const upgraded = openLedgerReadOnly(ledgerFileIn(older));
    expect(upgraded.schemaVersion).toBe(MIGRATIONS.length);
    upgraded.close();
  });

  it('sees every trust change in the next context, made here or by another process', () => {
    const publicKey = workspace.crypto.ed25519PublicKey(new Uint8Array(32).fill(3));
    expect(workspaceVerifyContext(workspace).pinned).toEqual([]);
    pinKey(workspace, { key_id: 'did:svc:acme:k1', algorithm: 'Ed25519', public_key: publicKey });
    expect(workspaceVerifyContext(workspace).pinned.map((key) => key.key_id)).toEqual(['did:svc:acme:k1']);
    // Another connection to the same ledger (as another process would be) unpins it.
    const other = openWorkspace(home);
    unpinKey(other, 'did:svc:acme:k1');
    other.close();
    expect(workspaceVerifyContext(workspace).pinned).toEqual([]);
    expect(readTrustStore(home)).toEqual([]);
    // Keys given for one verification are added, not kept.
    const extra = { key_id: 'did:svc:x', algorithm: 'Ed25519' as const, public_key: publicKey };
    expect(workspaceVerifyContext(workspace, { advertised: [extra] }).advertised).toEqual([extra]);
    expect(workspaceVerifyContext(workspace).advertised).toEqual([]);
  });

  it('answers the same keys object until the trust store itself changes', async () => {
    const publicKey = workspace.crypto.ed25519PublicKey(new Uint8Array(32).fill(3));
    const first = workspaceTrustKeys(workspace);
    expect(workspaceTrustKeys(workspace)).toBe(first);
    // Another change to the ledger, committed by another connection: the keys are read again, and kept.
    const other = openWorkspace(home);
    await createTenant(workspaceServiceStore(other), 'acme', 'pro');
    other.close();
    expect(workspaceTrustKeys(workspace)).toBe(first);
    pinKey(workspace, { key_id: 'did:svc:acme:k1', algorithm: 'Ed25519', public_key: publicKey });
    const pinned = workspaceTrustKeys(workspace);
    expect(pinned).not.toBe(first);
    expect(pinned.pinned.map((key) => key.key_id)).toEqual(['did:svc:acme:k1']);
    // The same key pinned again for fewer roles is another trust store.
    unpinKey(workspace, 'did:svc:acme:k1');
    pinKey(workspace, { key_id: 'did:svc:acme:k1', algorithm: 'Ed25519', public_key: publicKey, roles: ['service'] });
    const narrowed = workspaceTrustKeys(workspace);
    expect(narrowed).not.toBe(pinned);
    expect(narrowed.pinned[0]?.roles).toEqual(['service']);
  });
});
