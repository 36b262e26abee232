import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppApiResults } from '../../src-shared/api/contract';
import { createPortableProvider } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { createAppApi, type AppApiDispatcher } from './app-api';

// The anchors methods and the chain settings through the app API, as both transports reach it:
// untrusted inputs in, a real ledger and settings file in a temporary data folder. The chain
// checks themselves run on a real anvil in operations/anchors.test.ts and e2e/anchors.e2e.ts.
describe('app API: anchors and chain settings', () => {
  let home: string;
  let api: AppApiDispatcher;
  const call = <M extends keyof AppApiResults>(method: M, input?: unknown) =>
    api(method, input) as Promise<AppApiResults[M]>;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'evroom-anchors-api-'));
    api = createAppApi({ mode: 'web', dataDirectory: home });
  });

  afterEach(() => {
    api.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps the chain RPC and confirmations, validated, and refuses bad ones naming the field without changing anything', async () => {
    expect((await call('settings.get')).chain).toEqual({ rpc_url: null, confirmations: 1 });
    const saved = await call('settings.set', { chain: { rpc_url: 'http://127.0.0.1:8545', confirmations: 3 } });
    expect(saved.chain).toEqual({ rpc_url: 'http://127.0.0.1:8545', confirmations: 3 });
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).chain).toEqual({
      rpc_url: 'http://127.0.0.1:8545',
      confirmations: 3,
    });
    // One member at a time; the theme does not touch the chain.
    expect((await call('settings.set', { chain: { confirmations: 12 } })).chain).toEqual({
      rpc_url: 'http://127.0.0.1:8545',
      confirmations: 12,
    });
    expect((await call('settings.set', { theme: 'dark' })).chain.confirmations).toBe(12);
    for (const [chain, path] of [
      [{ rpc_url: 'ftp://node.example' }, '/chain/rpc_url'],
      [{ rpc_url: 'javascript:alert(1)' }, '/chain/rpc_url'],
      [{ rpc_url: 'http://user:secret@node.example' }, '/chain/rpc_url'],
      [{ rpc_url: 'http://node.example:99999' }, '/chain/rpc_url'],
      [{ rpc_url: `https://node.example/${'a'.repeat(2100)}` }, '/chain/rpc_url'],
      [{ rpc_url: 42 }, '/chain/rpc_url'],
      [{ confirmations: 0 }, '/chain/confirmations'],
      [{ confirmations: 1001 }, '/chain/confirmations'],
      [{ confirmations: 1.5 }, '/chain/confirmations'],
      [{ confirmations: '3' }, '/chain/confirmations'],
    ] as const) {
      const answer = await api.answer('settings.set', { chain });
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_request', details: [{ path }] } });
    }
    expect((await api.answer('settings.set', { chain: { network: 'base' } })).ok).toBe(false);
    expect((await call('settings.get')).chain).toEqual({ rpc_url: 'http://127.0.0.1:8545', confirmations: 12 });
    // null (or an empty field) clears the RPC.
    expect((await call('settings.set', { chain: { rpc_url: null } })).chain.rpc_url).toBeNull();
    expect((await call('settings.set', { chain: { rpc_url: 'https://[::1]:8545/rpc' } })).chain.rpc_url).toBe(
      'https://[::1]:8545/rpc',
    );
    expect((await call('settings.set', { chain: { rpc_url: '' } })).chain.rpc_url).toBeNull();
  });

  it('reads a damaged chain setting as the default', async () => {
    writeFileSync(
      join(home, 'settings.json'),
      JSON.stringify({ theme: 'light', chain: { rpc_url: 'file:///etc/passwd', confirmations: -4 } }),
    );
    expect((await call('settings.get')).chain).toEqual({ rpc_url: null, confirmations: 1 });
  });

  it("validates the anchors methods' inputs and answers an empty ledger", async () => {
    await expect(api('anchors.list', { state: 'good' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('state must be one of'),
    });
    await expect(api('anchors.list', { batch_id: '2026-11-23 09:00' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(api('anchors.list', { limit: 501 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api('anchors.get', { id: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api('anchors.check', { id: 1, rpc_url: 'http://evil.example' })).rejects.toMatchObject({
      message: expect.stringContaining('unknown member "rpc_url"'),
    });
    await expect(api('anchors.get', { id: 7 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api('anchors.check', { id: 7 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api('anchors.ofReceipt', { id: 7 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api('anchors.list', { after: 'garbage' })).rejects.toMatchObject({ code: 'bad_cursor' });
    expect(await call('anchors.batches')).toEqual({
      batches: [],
      nextCursor: null,
      totals: { verified: 0, verified_with_context: 0, verified_offline: 0, pending: 0, unchecked: 0, failed: 0 },
    });
    expect(await call('anchors.list', { state: 'failed' })).toEqual({ rows: [], nextCursor: null });
  });

  it("fills the receipt detail's anchor: state none and no records for a receipt without one", async () => {
    const text = signClassical('{"sequence":1,"amount":"2.00"}', new Uint8Array(32).fill(9), createPortableProvider());
    const saved = await call('verify', { text, save: true });
    const detail = await call('receipts.get', { id: saved.saved?.id });
    expect(detail.anchor).toEqual({ state: 'none', anchors: [] });
    expect(await call('anchors.ofReceipt', { id: saved.saved?.id })).toEqual({
      receipt_ledger_id: saved.saved?.id,
      receipt_sha256: detail.receipt_sha256,
      state: 'none',
      anchors: [],
    });
  });
});
