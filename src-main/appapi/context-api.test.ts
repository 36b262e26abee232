import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppApiResults } from '../../src-shared/api/contract';
import { b64uEncode } from '../../src-shared/crypto/encoding';
import { startAnvil, type AnvilProcess } from '../anchor/anvil';
import { ChainClient } from '../anchor/chain';
import { buildAnchoredBundle, fundedAnchorAccount } from '../operations/anchor-test-support';
import { exportContextPack } from '../operations/context';
import { importEvidence } from '../operations/evidence';
import { openWorkspace } from '../operations/workspace';
import { createAppApi, type AppApiDispatcher } from './app-api';

// Context packs and pinned block hashes through the app API (Settings), as both transports reach
// it: untrusted inputs in, a real pack made online from a real anvil, a temporary data folder.
let anvil: AnvilProcess;
let scratch: string;
let home: string;
let pack: Uint8Array;
let made: Awaited<ReturnType<typeof exportContextPack>>;
let api: AppApiDispatcher;
const call = <M extends keyof AppApiResults>(method: M, input?: unknown) =>
  api(method, input) as Promise<AppApiResults[M]>;

beforeAll(async () => {
  anvil = await startAnvil();
  const chain = new ChainClient(anvil.rpcUrl);
  scratch = mkdtempSync(join(tmpdir(), 'evroom-context-api-'));
  const bundle = await buildAnchoredBundle({
    out: join(scratch, 'anchored.zip'),
    chain,
    account: await fundedAnchorAccount(chain),
    nonce: 0,
    receipts: 2,
  });
  const online = openWorkspace(join(scratch, 'online'));
  try {
    await importEvidence(online, bundle.file);
    made = await exportContextPack(online, { out: join(scratch, 'pack.zip'), rpcUrl: anvil.rpcUrl, inputs: [] });
  } finally {
    online.close();
  }
  pack = new Uint8Array(readFileSync(made.out));
  home = join(scratch, 'offline');
  api = createAppApi({ mode: 'web', dataDirectory: home });
}, 120_000);

afterAll(async () => {
  api?.close();
  await anvil?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function packsStored(): string[] {
  const folder = join(home, 'context', 'packs');
  return existsSync(folder) ? readdirSync(folder) : [];
}

describe('app API: context packs', () => {
  it('imports an uploaded pack with its summary, lists it, imports it again as a no-op, and removes it', async () => {
    expect(await call('context.list')).toEqual([]);
    const summary = await call('context.import', { data: b64uEncode(pack), name: 'pack.zip' });
    expect(summary).toMatchObject({
      pack_id: made.pack_id,
      chain_id: made.chain_id,
      head: made.head,
      made_at: made.made_at,
      rpc: anvil.rpcUrl,
      signer: made.signer,
      anchors: made.anchors,
      headers: made.headers,
    });
    expect(packsStored()).toEqual([`${made.pack_id}.zip`]);
    expect(await call('context.import', { data: b64uEncode(pack) })).toMatchObject({ pack_id: made.pack_id });
    expect((await call('context.list')).map((listed) => listed.pack_id)).toEqual([made.pack_id]);
    expect(await call('context.remove', { pack_id: made.pack_id })).toEqual({ pack_id: made.pack_id, removed: true });
    expect(await call('context.list')).toEqual([]);
    await expect(api('context.remove', { pack_id: made.pack_id })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a pack that is not one, or was changed, saying why and storing nothing', async () => {
    // Not a zip, and the pack cut short (its central directory lost on the way).
    for (const data of [
      b64uEncode(new TextEncoder().encode('not a zip')),
      b64uEncode(pack.subarray(0, pack.length - 64)),
    ]) {
      const answer = await api.answer('context.import', { data });
      expect(answer.ok).toBe(false);
      if (!answer.ok) {
        expect(answer.error.code).not.toBe('internal');
        expect(answer.error.message.length).toBeGreaterThan(10);
      }
    }
    expect(packsStored()).toEqual([]);
    for (const [input, path] of [
      [{}, '/data'],
      [{ data: 'not base64url!' }, '/data'],
      [{ data: 'AA', name: 'a\u0007b' }, '/name'],
      [{ data: 'AA', path: '/etc/passwd' }, '/path'],
    ] as const) {
      const answer = await api.answer('context.import', input);
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_request', details: [{ path }] } });
    }
    for (const packId of ['ctx_0', 'ctx_ZZ', '../../etc/passwd', 7]) {
      const answer = await api.answer('context.remove', { pack_id: packId });
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_request', details: [{ path: '/pack_id' }] } });
    }
    expect(await call('context.list')).toEqual([]);
  });
});

describe('app API: pinned block hashes', () => {
  const hash = `0x${'AB'.repeat(32)}`;
  it('pins a block hash (lowercased, with a note), replaces a pin of the same block, lists and unpins', async () => {
    const pinned = await call('context.pin', { chain_id: 31337, number: 12, hash, note: 'from the team channel' });
    expect(pinned).toMatchObject({
      chain_id: 31337,
      number: 12,
      hash: hash.toLowerCase(),
      note: 'from the team channel',
    });
    const again = await call('context.pin', { chain_id: 31337, number: 12, hash: `0x${'cd'.repeat(32)}` });
    expect(again.hash).toBe(`0x${'cd'.repeat(32)}`);
    expect((await call('context.pins')).map((pin) => [pin.chain_id, pin.number, pin.hash])).toEqual([
      [31337, 12, `0x${'cd'.repeat(32)}`],
    ]);
    expect(await call('context.unpin', { chain_id: 31337, number: 12 })).toEqual({
      chain_id: 31337,
      number: 12,
      removed: true,
    });
    expect(await call('context.pins')).toEqual([]);
    await expect(api('context.unpin', { chain_id: 31337, number: 12 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a bad pin naming the field, and changes nothing', async () => {
    for (const [input, path] of [
      [{ number: 1, hash }, '/chain_id'],
      [{ chain_id: 0, number: 1, hash }, '/chain_id'],
      [{ chain_id: '1', number: 1, hash }, '/chain_id'],
      [{ chain_id: 1, number: -1, hash }, '/number'],
      [{ chain_id: 1, number: 1.5, hash }, '/number'],
      [{ chain_id: 1, number: 1, hash: '0x1234' }, '/hash'],
      [{ chain_id: 1, number: 1, hash: 'ab'.repeat(32) }, '/hash'],
      [{ chain_id: 1, number: 1, hash, note: 'x'.repeat(201) }, '/note'],
      [{ chain_id: 1, number: 1, hash, note: 'two\nlines' }, '/note'],
      [{ chain_id: 1, number: 1, hash, trusted: true }, '/trusted'],
    ] as const) {
      const answer = await api.answer('context.pin', input);
      expect(answer, JSON.stringify(input)).toMatchObject({
        ok: false,
        error: { code: 'invalid_request', details: [{ path }] },
      });
    }
    expect(await call('context.pins')).toEqual([]);
  });
});
