import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createBlockHeader } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, keccak256, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PinnedBlock } from '../../src-shared/anchor/context';
import { b64uEncode, hexDecode, hexEncode } from '../../src-shared/crypto/encoding';
import { didKeyFromEd25519, utf8Encode } from '../../src-shared/crypto';
import { formatCheckpoint, formatNote, signNoteLine } from '../../src-shared/crypto/signed-note';
import { TlogMemory, tlogLeafHash } from '../../src-shared/crypto/tlog';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { startAnvil, type AnvilProcess } from '../anchor/anvil';
import { commonFor } from '../anchor/context-check';
import { anchorAccount, ChainClient } from '../anchor/chain';
import {
  contextHeadersFile,
  CONTEXT_MANIFEST,
  CONTEXT_SIGNATURE,
  contextAnchorFile,
  CONTEXT_CHECKPOINTS,
  CONTEXT_TRUST,
  type ContextAnchorEntry,
  type ContextHeaderEntry,
  type ContextManifest,
} from '../anchor/context-pack';
import { nodeSha256, postAnchorBatch, type PostedBatch } from '../anchor/test-support';
import { verifyAnchor } from '../anchor/verify-anchor';
import { readContextZip, writeContextZip } from '../evidence/context-zip';
import { createZipWriter } from '../evidence/zip-writer';
import { anchorCalldata, encodeAnchorHash } from '../../src-shared/anchor/proof';
import { anchorSuffix, resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { anchorTree } from '../../src-shared/crypto/merkle';
import { withAuditorKey } from '../report/auditor-key';
import {
  exportContextPack,
  importContextPack,
  listContextPacks,
  listPinnedBlocks,
  openContextPackFile,
  pinBlockHash,
  removeContextPack,
  unpinBlockHash,
  verifyAnchorWithContext,
} from './context';
import { buildAnchoredBundle, fundedAnchorAccount } from './anchor-test-support';
import { OperationError } from './errors';
import { importEvidence } from './evidence';
import { listLogs, logDetail, recordSeenCheckpoint } from './log-checkpoints';
import { openWorkspace, type Workspace } from './workspace';

const digestOf = (text: string): Uint8Array => nodeSha256(new TextEncoder().encode(text));

let anvil: AnvilProcess;
let chain: ChainClient;
let workspace: Workspace;
let folder: string;
const account = anchorAccount(`0x${randomBytes(32).toString('hex')}`);
let nonce = 0;
let first: PostedBatch;
let second: PostedBatch;
let reverted: { hash: string; block: number; record: Record<string, unknown> };
let pack: string;
const digests = [digestOf('a'), digestOf('b'), digestOf('c')];
const laterDigest = digestOf('later');

function file(name: string): string {
  return path.join(folder, name);
}

/**
 * An anchor-shaped transaction (self to self, value 0, the anchor data) that is mined but fails:
 * the account delegates its code (EIP-7702 designator, set by anvil) to a contract that reverts.
 */
async function postRevertedAnchor(): Promise<{ hash: string; block: number; record: Record<string, unknown> }> {
  const victim = anchorAccount(`0x${randomBytes(32).toString('hex')}`);
  await chain.fundOnDevelopmentChain(victim.address);
  const reverter = `0x${'de'.repeat(20)}`;
  await chain.request('code', 'anvil_setCode', [reverter, '0x60006000fd']);
  await chain.request('code', 'anvil_setCode', [victim.address, `0xef0100${reverter.slice(2)}`]);
  const digest = digestOf('reverted');
  const { root, paths } = anchorTree(nodeSha256, [digest]);
  const raw = await victim.signTransaction({
    chainId: await chain.chainId(),
    nonce: 0,
    to: victim.address,
    value: 0n,
    data: anchorCalldata(root),
    gas: 100_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    type: 'eip1559',
  });
  const hash = await chain.broadcast(raw);
  let tx = await chain.transaction(hash);
  for (let tries = 0; tx?.blockNumber === null || tx === undefined; tries += 1) {
    if (tries > 250) throw new Error('not mined');
    await new Promise((resolve) => setTimeout(resolve, 20));
    tx = await chain.transaction(hash);
  }
  expect(await chain.receiptStatus(hash)).toBe('reverted');
  const block = tx.blockNumber as number;
  const record = {
    svc_anchor: resolvedAnchorUrn({
      network: 'anvil-local',
      block_height: block,
      tx_hash: hash,
      suffix: anchorSuffix(digest),
    }),
    batch_id: '2026-11-23T09:00Z',
    network: 'anvil-local',
    block_height: block,
    tx_hash: hash,
    merkle_root: encodeAnchorHash(root),
    merkle_path: (paths[0] as Uint8Array[]).map(encodeAnchorHash),
    verified_at: '2026-11-23T09:01:00Z',
  };
  return { hash, block, record };
}

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'evroom-context-'));
  workspace = openWorkspace(path.join(folder, 'data'));
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
  await chain.fundOnDevelopmentChain(account.address);
  first = await postAnchorBatch(chain, account, digests.slice(0, 2), nonce++);
  await chain.mineOnDevelopmentChain(2);
  second = await postAnchorBatch(chain, account, digests.slice(2), nonce++);
  reverted = await postRevertedAnchor();
  await chain.mineOnDevelopmentChain(3);
  writeFileSync(file('first.json'), JSON.stringify(first.records[0]));
  writeFileSync(file('second.json'), JSON.stringify(second.records[0]));
  writeFileSync(file('reverted.json'), JSON.stringify(reverted.record));
  pack = file('pack.zip');
  const lines: string[] = [];
  await exportContextPack(workspace, {
    out: pack,
    rpcUrl: anvil.rpcUrl,
    inputs: [file('first.json'), file('second.json'), file('reverted.json')],
    onProgress: (line) => lines.push(line),
  });
  expect(lines.some((line) => line.startsWith('Headers '))).toBe(true);
}, 60_000);

afterAll(async () => {
  workspace?.close();
  await anvil?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** Rewrites a pack with an edit of its files, re-signed by the auditor key (or not). */
async function repack(
  out: string,
  edit: (files: Map<string, Uint8Array>) => void,
  sign: 'auditor' | 'none' | 'other-key' | 'forged' = 'auditor',
  source: string = pack,
  signer: Workspace = workspace,
): Promise<string> {
  const files = await readContextZip(source);
  edit(files);
  if (sign !== 'none') {
    const manifest = JSON.parse(new TextDecoder().decode(files.get(CONTEXT_MANIFEST))) as ContextManifest;
    for (const name of Object.keys(manifest.files))
      manifest.files[name] = hexEncode(workspace.crypto.sha256(files.get(name) as Uint8Array));
    const bytes = new TextEncoder().encode(jcs(manifest as unknown as JsonValue));
    files.set(CONTEXT_MANIFEST, bytes);
    let signature: { alg: string; key_id: string; signature: string };
    if (sign === 'auditor') {
      signature = withAuditorKey(signer.dataDirectory, signer.crypto, (seed, key) => ({
        alg: 'Ed25519',
        key_id: key.key_id,
        signature: b64uEncode(workspace.crypto.ed25519Sign(bytes, seed)),
      })).result;
    } else {
      const seed = new Uint8Array(randomBytes(32));
      signature = {
        alg: 'Ed25519',
        key_id: sign === 'forged' ? manifest.signer : didKeyFromEd25519(workspace.crypto.ed25519PublicKey(seed)),
        signature: b64uEncode(workspace.crypto.ed25519Sign(bytes, seed)),
      };
    }
    files.set(CONTEXT_SIGNATURE, new TextEncoder().encode(JSON.stringify(signature)));
  }
  const target = file(out);
  await writeContextZip(
    target,
    [...files].map(([name, bytes]) => ({ name, bytes })),
  );
  return target;
}

function headersOf(files: Map<string, Uint8Array>): ContextHeaderEntry[] {
  return JSON.parse(new TextDecoder().decode(files.get(contextHeadersFile(0)))) as ContextHeaderEntry[];
}

function anchorOf(files: Map<string, Uint8Array>, hash: string): ContextAnchorEntry {
  return JSON.parse(new TextDecoder().decode(files.get(contextAnchorFile(hash)))) as ContextAnchorEntry;
}

async function verifyWith(
  packFile: string,
  record: Record<string, unknown>,
  digest: Uint8Array,
  options: { confirmations?: number; pins?: PinnedBlock[] } = {},
) {
  return verifyAnchor({
    sha256: nodeSha256,
    digest,
    record,
    context: await openContextPackFile(packFile),
    ...(options.confirmations === undefined ? {} : { confirmations: options.confirmations }),
    ...(options.pins === undefined ? {} : { pins: options.pins }),
  });
}

describe('a context pack made online', () => {
  it('verifies every anchor offline, with the pack as the evidence of steps 2 and 3', async () => {
    const opened = await openContextPackFile(pack);
    const signer = withAuditorKey(workspace.dataDirectory, workspace.crypto, () => 0).key.key_id;
    expect(opened.integrity).toEqual({ ok: true });
    expect(opened.manifest.signer).toBe(signer);
    expect(opened.manifest.chain_id).toBe(31337);
    expect(opened.manifest.headers.from).toBe(first.blockHeight);
    const cases: [Record<string, unknown>, Uint8Array][] = [
      [first.records[0] as Record<string, unknown>, digests[0] as Uint8Array],
      [first.records[1] as Record<string, unknown>, digests[1] as Uint8Array],
      [second.records[0] as Record<string, unknown>, digests[2] as Uint8Array],
    ];
    for (const [record, digest] of cases) {
      const result = await verifyWith(pack, record, digest, { confirmations: 3 });
      expect(result.anchor_status).toBe('verified_with_context');
      expect(result.steps.map((step) => step.status)).toEqual(['pass', 'pass', 'pass']);
      for (const step of result.steps.slice(1)) {
        expect(step.evidence).toBe('context');
        expect(step.context).toMatchObject({
          pack_id: opened.pack_id,
          signer,
          head: opened.manifest.head,
          head_trust: 'claimed',
          made_at: opened.manifest.made_at,
        });
      }
    }
  });

  it('counts the depth from the pack head', async () => {
    const depth = (await openContextPackFile(pack)).manifest.head.number - first.blockHeight + 1;
    const enough = await verifyWith(pack, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array, {
      confirmations: depth,
    });
    expect(enough.anchor_status).toBe('verified_with_context');
    const short = await verifyWith(pack, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array, {
      confirmations: depth + 1,
    });
    expect(short.anchor_status).toBe('failed');
    expect(short.steps[2]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(short.steps[2]?.detail).toContain(`${depth} confirmations`);
  });

  it('a pinned block hash that matches checks the head; one that disagrees fails step 3', async () => {
    const opened = await openContextPackFile(pack);
    const head = opened.manifest.head;
    const checked = await verifyWith(pack, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array, {
      pins: [{ chain_id: 31337, number: head.number, hash: head.hash }],
    });
    expect(checked.anchor_status).toBe('verified_with_context');
    expect(checked.steps[2]?.context).toMatchObject({ head_trust: 'checked', pinned: head });
    const wrong = await verifyWith(pack, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array, {
      pins: [{ chain_id: 31337, number: head.number, hash: `0x${'ab'.repeat(32)}` }],
    });
    expect(wrong.anchor_status).toBe('failed');
    expect(wrong.steps[1]?.status).toBe('pass');
    expect(wrong.steps[2]).toMatchObject({ status: 'fail' });
    expect(wrong.steps[2]?.detail).toContain('is pinned as');
    const otherChain = await verifyWith(pack, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array, {
      pins: [{ chain_id: 1, number: head.number, hash: `0x${'ab'.repeat(32)}` }],
    });
    expect(otherChain.steps[2]?.context?.head_trust).toBe('claimed');
  });

  it('a header edited in the pack fails step 2 (the anchor block) or step 3 (a header above it)', async () => {
    const editTimestamp = (entry: ContextHeaderEntry): ContextHeaderEntry => {
      const fields = RLP.decode(hexToBytes(entry.rlp as Hex)) as Uint8Array[];
      fields[11] = RLP.decode(RLP.encode(12345)) as Uint8Array;
      return { ...entry, rlp: bytesToHex(RLP.encode(fields)) };
    };
    const atBlock = await repack('edited-block.zip', (files) => {
      const headers = headersOf(files).map((entry) =>
        entry.number === first.blockHeight ? editTimestamp(entry) : entry,
      );
      files.set(contextHeadersFile(0), new TextEncoder().encode(JSON.stringify(headers)));
    });
    const two = await verifyWith(atBlock, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(two.anchor_status).toBe('failed');
    expect(two.steps[1]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(two.steps[1]?.detail).toContain('it was edited');
    expect(two.steps[2]?.status).toBe('unchecked');

    const above = await repack('edited-above.zip', (files) => {
      const headers = headersOf(files).map((entry) =>
        entry.number === first.blockHeight + 1 ? editTimestamp(entry) : entry,
      );
      files.set(contextHeadersFile(0), new TextEncoder().encode(JSON.stringify(headers)));
    });
    const three = await verifyWith(above, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(three.anchor_status).toBe('failed');
    expect(three.steps[1]?.status).toBe('pass');
    expect(three.steps[2]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(three.steps[2]?.detail).toContain(`header of block ${first.blockHeight + 1}`);

    // The edited header listed under its new hash: the next header no longer names it as parent.
    const relinked = await repack('edited-relinked.zip', (files) => {
      const headers = headersOf(files).map((entry) => {
        if (entry.number !== first.blockHeight + 1) return entry;
        const edited = editTimestamp(entry);
        return { ...edited, hash: keccak256(edited.rlp as Hex) };
      });
      files.set(contextHeadersFile(0), new TextEncoder().encode(JSON.stringify(headers)));
    });
    const broken = await verifyWith(relinked, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(broken.steps[1]?.status).toBe('pass');
    expect(broken.steps[2]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(broken.steps[2]?.detail).toContain(`header of block ${first.blockHeight + 2} names parent`);
  });

  it('a transaction proof from another block fails step 2', async () => {
    const swapped = await repack('swapped-proof.zip', (files) => {
      const mine = anchorOf(files, first.hash);
      const other = anchorOf(files, second.hash);
      files.set(
        contextAnchorFile(first.hash),
        new TextEncoder().encode(JSON.stringify({ ...mine, tx_proof: other.tx_proof })),
      );
    });
    const result = await verifyWith(swapped, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(result.anchor_status).toBe('failed');
    expect(result.steps[1]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(result.steps[1]?.detail).toContain('The transaction proof does not prove');
  });

  it('a receipt showing failure fails step 2', async () => {
    const result = await verifyWith(pack, reverted.record, digestOf('reverted'));
    expect(result.steps[0]?.status).toBe('pass');
    expect(result.anchor_status).toBe('failed');
    expect(result.steps[1]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(result.steps[1]?.detail).toContain('did not succeed: its proven receipt');
  });

  it('a head chain with a gap fails step 3', async () => {
    const gap = await repack('gap.zip', (files) => {
      const headers = headersOf(files).filter((entry) => entry.number !== second.blockHeight + 1);
      files.set(contextHeadersFile(0), new TextEncoder().encode(JSON.stringify(headers)));
    });
    const result = await verifyWith(gap, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(result.anchor_status).toBe('failed');
    expect(result.steps[1]?.status).toBe('pass');
    expect(result.steps[2]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(result.steps[2]?.detail).toContain(`gap: block ${second.blockHeight + 1} is missing`);
  });

  it('a pack signed by another key than the one it names, or changed after signing, fails steps 2 and 3', async () => {
    const other = await repack('other-key.zip', () => undefined, 'other-key');
    const result = await verifyWith(other, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(result.anchor_status).toBe('failed');
    expect(result.steps[1]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(result.steps[2]).toMatchObject({ status: 'fail', evidence: 'context' });
    expect(result.steps[1]?.detail).toMatch(/names signer did:key:\S+, but its signature is by did:key:/);

    const forged = await repack('forged.zip', () => undefined, 'forged');
    const byOther = await verifyWith(forged, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(byOther.anchor_status).toBe('failed');
    expect(byOther.steps[2]?.status).toBe('fail');
    expect(byOther.steps[1]?.detail).toContain('signature does not verify with the key it names');

    const changed = await repack(
      'changed.zip',
      (files) => {
        const headers = headersOf(files);
        files.set(contextHeadersFile(0), new TextEncoder().encode(JSON.stringify(headers.slice(0, -1))));
      },
      'none',
    );
    const after = await verifyWith(changed, first.records[0] as Record<string, unknown>, digests[0] as Uint8Array);
    expect(after.steps[1]?.status).toBe('fail');
    expect(after.steps[1]?.detail).toContain('headers/0.json does not match the SHA-256 its signed manifest gives');
  });

  it('a zip that is not a pack is refused whole: a foreign entry, a file the manifest does not list, a missing manifest', async () => {
    const files = await readContextZip(pack);
    const foreign = createZipWriter(file('foreign.zip'));
    for (const [name, bytes] of files) foreign.add(name, () => bytes);
    foreign.add('notes.txt', () => new TextEncoder().encode('hello'));
    await foreign.finish();
    await expect(openContextPackFile(file('foreign.zip'))).rejects.toThrow(
      /"notes\.txt", which is not a file of a context pack/,
    );

    const unlisted = await repack(
      'unlisted.zip',
      (entries) => entries.set(contextAnchorFile(`0x${'77'.repeat(32)}`), new TextEncoder().encode('{}')),
      'none',
    );
    await expect(openContextPackFile(unlisted)).rejects.toMatchObject({
      code: 'context_pack_invalid',
      message: expect.stringContaining('which its manifest does not list'),
    });
    const bare = await repack('bare.zip', (entries) => entries.delete(CONTEXT_MANIFEST), 'none');
    await expect(openContextPackFile(bare)).rejects.toThrow('The context pack has no manifest.json.');
  });

  it('a pack older than the anchor says what is missing', async () => {
    const later = await postAnchorBatch(chain, account, [laterDigest], nonce++);
    const result = await verifyWith(pack, later.records[0] as Record<string, unknown>, laterDigest);
    expect(result.anchor_status).toBe('verified_offline');
    expect(result.steps[1]).toMatchObject({ status: 'unchecked' });
    expect(result.steps[1]?.detail).toContain(`older than block ${later.blockHeight}`);
    expect(result.steps[1]?.detail).toContain('Make a new pack online');
  });
});

describe('imported packs and pins', () => {
  it('imports a pack checked whole, refuses a broken one, verifies from the data folder', async () => {
    const gap = await repack('gap-import.zip', (files) => {
      const headers = headersOf(files).filter((entry) => entry.number !== first.blockHeight + 1);
      files.set(contextHeadersFile(0), new TextEncoder().encode(JSON.stringify(headers)));
    });
    await expect(importContextPack(workspace, gap)).rejects.toMatchObject({
      code: 'context_pack_refused',
      message: expect.stringMatching(/^The pack's chain of headers has a gap: block \d+ is missing .*\.$/),
    });
    expect(await listContextPacks(workspace)).toEqual([]);

    const summary = await importContextPack(workspace, pack);
    expect(summary).toMatchObject({ anchors: 3, chain_id: 31337 });
    expect(await importContextPack(workspace, pack)).toMatchObject({ pack_id: summary.pack_id });
    expect((await listContextPacks(workspace)).map((item) => item.pack_id)).toEqual([summary.pack_id]);

    const result = await verifyAnchorWithContext(workspace, {
      digest: digests[2] as Uint8Array,
      record: second.records[0],
    });
    expect(result.anchor_status).toBe('verified_with_context');

    pinBlockHash(workspace, {
      chain_id: 31337,
      number: summary.head.number,
      hash: summary.head.hash.toUpperCase().replace('0X', '0x'),
    });
    expect(listPinnedBlocks(workspace)).toMatchObject([{ number: summary.head.number, hash: summary.head.hash }]);
    const pinned = await verifyAnchorWithContext(workspace, {
      digest: digests[2] as Uint8Array,
      record: second.records[0],
    });
    expect(pinned.steps[2]?.context?.head_trust).toBe('checked');
    unpinBlockHash(workspace, { chain_id: 31337, number: summary.head.number });
    expect(listPinnedBlocks(workspace)).toEqual([]);
    expect(() => pinBlockHash(workspace, { chain_id: 31337, number: -1, hash: summary.head.hash })).toThrow(
      OperationError,
    );
    expect(() => pinBlockHash(workspace, { chain_id: 31337, number: 1, hash: '0x12' })).toThrow(
      /hash must be 0x and 64 hex/,
    );

    removeContextPack(workspace, summary.pack_id);
    const none = await verifyAnchorWithContext(workspace, {
      digest: digests[2] as Uint8Array,
      record: second.records[0],
    });
    expect(none.anchor_status).toBe('verified_offline');
    expect(none.steps[1]?.detail).toContain('No context pack is imported');
  });

  it('carries the log checkpoints its maker has seen: recorded on import, a split view reported, a note its key does not verify refused', async () => {
    const sha256 = (data: Uint8Array): Uint8Array => workspace.crypto.sha256(data);
    const keyName = 'logs.example/packs';
    const origin = `${keyName}/tenants/acme`;
    const seed = new Uint8Array(32).fill(11);
    const publicKey = workspace.crypto.ed25519PublicKey(seed);
    const log = new TlogMemory(sha256);
    for (let index = 0; index < 6; index += 1) log.append(tlogLeafHash(sha256, utf8Encode(`leaf ${index}`)));
    const noteAt = (size: number, root = log.root(size)): string => {
      const text = formatCheckpoint({ origin, size, rootHash: root, extensions: [] });
      return formatNote(text, [signNoteLine(workspace.crypto, text, keyName, seed)]);
    };
    // The online workstation pins the log key and has seen two checkpoints of the log.
    const maker = openWorkspace(file('checkpoints-maker'));
    const home = openWorkspace(file('checkpoints-home'));
    try {
      maker.trust.pin({ key_id: didKeyFromEd25519(publicKey), algorithm: 'Ed25519', public_key: publicKey });
      for (const size of [4, 6])
        recordSeenCheckpoint(maker, {
          note: noteAt(size),
          origin,
          key_name: keyName,
          log_key: publicKey,
          size,
          root: log.root(size),
          source: 'api:test',
        });
      const exported = await exportContextPack(maker, {
        out: file('checkpoints.zip'),
        rpcUrl: anvil.rpcUrl,
        inputs: [file('first.json')],
      });
      expect(exported.checkpoints).toBe(2);
      // The maker's trust store travels as a snapshot (the evroom trust export format), signed with the rest.
      const carried = await readContextZip(exported.out);
      expect(new TextDecoder().decode(carried.get(CONTEXT_TRUST))).toBe(maker.trust.exportKeys());
      expect(maker.trust.exportKeys()).toContain(didKeyFromEd25519(publicKey));

      // The air-gapped one has seen, of size 4, another root: the pack's size 4 is a split view (its size 6 has no proof to that root, so it stays unchecked), said on import.
      const other = new TlogMemory(sha256);
      for (let index = 0; index < 4; index += 1) other.append(tlogLeafHash(sha256, utf8Encode(`fork ${index}`)));
      recordSeenCheckpoint(home, {
        note: noteAt(4, other.root(4)),
        origin,
        key_name: keyName,
        log_key: publicKey,
        size: 4,
        root: other.root(4),
        source: 'api:elsewhere',
      });
      const summary = await importContextPack(home, exported.out);
      expect(summary).toMatchObject({ checkpoints: 2, log_split_views: 1 });
      const [view] = listLogs(home);
      expect(view).toMatchObject({ origin, consistency: 'split_view', checkpoints: 3, signer: 'unknown' });
      expect(
        logDetail(home, origin).history.filter((item) => item.source === `context:${summary.pack_id}`),
      ).toHaveLength(2);

      // A checkpoint the carried key does not verify refuses the pack, and records nothing.
      const forged = await repack(
        'checkpoints-forged.zip',
        (files) => {
          const entries = JSON.parse(new TextDecoder().decode(files.get(CONTEXT_CHECKPOINTS))) as {
            public_key: string;
          }[];
          (entries[1] as { public_key: string }).public_key = b64uEncode(
            workspace.crypto.ed25519PublicKey(new Uint8Array(32).fill(12)),
          );
          files.set(CONTEXT_CHECKPOINTS, new TextEncoder().encode(JSON.stringify(entries)));
        },
        'auditor',
        exported.out,
        maker,
      );
      const fresh = openWorkspace(file('checkpoints-fresh'));
      try {
        await expect(importContextPack(fresh, forged)).rejects.toThrow(
          /log checkpoint 1 .* does not verify with the log key carried beside it/,
        );
        expect(listLogs(fresh)).toEqual([]);
        expect(await listContextPacks(fresh)).toEqual([]);
      } finally {
        fresh.close();
      }
    } finally {
      maker.close();
      home.close();
    }
  });

  it('with several imported packs, uses the newest that carries the anchor, and says when none does', async () => {
    const home = openWorkspace(file('packs-home'));
    try {
      const old = await importContextPack(home, pack);
      const later = await postAnchorBatch(chain, account, [digestOf('later-2')], nonce++);
      const unpacked = await postAnchorBatch(chain, account, [digestOf('unpacked')], nonce++);
      writeFileSync(file('later-2.json'), JSON.stringify(later.records[0]));
      await exportContextPack(workspace, {
        out: file('newer.zip'),
        rpcUrl: anvil.rpcUrl,
        inputs: [file('first.json'), file('later-2.json')],
      });
      const newer = await importContextPack(home, file('newer.zip'));
      const orphan = await postAnchorBatch(chain, account, [digestOf('orphan')], nonce++);
      expect((await listContextPacks(home)).map((item) => item.pack_id)).toEqual([newer.pack_id, old.pack_id]);
      const firstResult = await verifyAnchorWithContext(home, {
        digest: digests[0] as Uint8Array,
        record: first.records[0],
      });
      expect(firstResult.steps[2]?.context?.pack_id).toBe(newer.pack_id);
      const secondResult = await verifyAnchorWithContext(home, {
        digest: digests[2] as Uint8Array,
        record: second.records[0],
      });
      expect(secondResult.anchor_status).toBe('verified_with_context');
      expect(secondResult.steps[2]?.context?.pack_id).toBe(old.pack_id);
      const laterResult = await verifyAnchorWithContext(home, {
        digest: digestOf('later-2'),
        record: later.records[0],
      });
      expect(laterResult.anchor_status).toBe('verified_with_context');
      const orphanResult = await verifyAnchorWithContext(home, {
        digest: digestOf('orphan'),
        record: orphan.records[0],
      });
      expect(orphanResult.anchor_status).toBe('verified_offline');
      expect(orphanResult.steps[1]?.detail).toContain(`is older than block ${orphan.blockHeight}`);
      const unpackedResult = await verifyAnchorWithContext(home, {
        digest: digestOf('unpacked'),
        record: unpacked.records[0],
      });
      expect(unpackedResult.anchor_status).toBe('verified_offline');
      expect(unpackedResult.steps[1]?.detail).toContain(`carries no evidence for transaction ${unpacked.hash}`);
    } finally {
      home.close();
    }
  });

  it('exports the anchors of a bundle, and with no file every resolved anchor of the ledger', async () => {
    const bundle = await buildAnchoredBundle({
      out: file('anchored.zip'),
      chain,
      account: await fundedAnchorAccount(chain),
      nonce: 0,
      receipts: 3,
    });
    const fromBundle = await exportContextPack(workspace, {
      out: file('bundle-pack.zip'),
      rpcUrl: anvil.rpcUrl,
      inputs: [bundle.file],
    });
    expect(fromBundle).toMatchObject({ anchors: 1, missing: [] });
    expect((await openContextPackFile(file('bundle-pack.zip'))).anchors.has(bundle.hash.toLowerCase())).toBe(true);

    const other = openWorkspace(file('ledger-home'));
    try {
      await importEvidence(other, bundle.file);
      const fromLedger = await exportContextPack(other, {
        out: file('ledger-pack.zip'),
        rpcUrl: anvil.rpcUrl,
        inputs: [],
      });
      expect(fromLedger.anchors).toBe(1);
      expect(fromLedger.signer).not.toBe(fromBundle.signer); // each workstation signs with its own auditor key
      const opened = await openContextPackFile(file('ledger-pack.zip'));
      expect([...opened.anchors.keys()]).toEqual([bundle.hash.toLowerCase()]);
      const record = bundle.records[0] as Record<string, unknown>;
      const result = await verifyAnchor({
        sha256: nodeSha256,
        digest: hexDecode(bundle.receipts[0] as string),
        record,
        context: opened,
      });
      expect(result.anchor_status).toBe('verified_with_context');
      expect(result.steps[1]?.context?.signer).toBe(fromLedger.signer);
    } finally {
      other.close();
    }
    const empty = openWorkspace(file('empty-home'));
    try {
      await expect(
        exportContextPack(empty, { out: file('empty-pack.zip'), rpcUrl: anvil.rpcUrl, inputs: [] }),
      ).rejects.toMatchObject({ code: 'context_nothing_to_pack' });
    } finally {
      empty.close();
    }
  });

  it('a pack of more than 20,000 headers is imported with a progress line every 10,000, the event loop turning meanwhile', async () => {
    // The real pack's chain, extended by 21,000 well-formed headers on top of its head (anvil
    // mines too slowly for a real one), re-signed by the auditor key.
    const common = commonFor(31337, Hardfork.Prague);
    const long = await repack('long.zip', (files) => {
      const manifest = JSON.parse(new TextDecoder().decode(files.get(CONTEXT_MANIFEST))) as ContextManifest;
      const headers = manifest.headers.files.flatMap(
        (name) => JSON.parse(new TextDecoder().decode(files.get(name))) as ContextHeaderEntry[],
      );
      let parent = headers[headers.length - 1] as ContextHeaderEntry;
      for (let count = 0; count < 21_000; count += 1) {
        const header = createBlockHeader(
          {
            number: BigInt(parent.number + 1),
            parentHash: hexToBytes(parent.hash as Hex),
            timestamp: BigInt(1_900_000_000 + count),
            gasLimit: 30_000_000n,
          },
          { common, skipConsensusFormatValidation: true },
        );
        parent = { number: parent.number + 1, hash: bytesToHex(header.hash()), rlp: bytesToHex(header.serialize()) };
        headers.push(parent);
      }
      const names: string[] = [];
      for (let start = 0; start < headers.length; start += 10_000) {
        const name = contextHeadersFile(names.length);
        names.push(name);
        files.set(name, new TextEncoder().encode(JSON.stringify(headers.slice(start, start + 10_000))));
        manifest.files[name] = '';
      }
      manifest.head = { number: parent.number, hash: parent.hash };
      manifest.headers = { from: manifest.headers.from, to: parent.number, files: names };
      files.set(CONTEXT_MANIFEST, new TextEncoder().encode(JSON.stringify(manifest)));
    });
    const home = openWorkspace(file('long-home'));
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 1);
    try {
      const lines: { line: string; ticks: number }[] = [];
      const summary = await importContextPack(home, long, { onProgress: (line) => lines.push({ line, ticks }) });
      const total = summary.headers.to - summary.headers.from + 1;
      expect(total).toBeGreaterThan(21_000);
      expect(lines.map((item) => item.line)).toEqual([
        `Checked 10,000 of ${total.toLocaleString('en')} headers`,
        `Checked 20,000 of ${total.toLocaleString('en')} headers`,
      ]);
      // The check yields between headers: timers ran between its two progress lines.
      expect((lines[1]?.ticks ?? 0) - (lines[0]?.ticks ?? 0)).toBeGreaterThan(0);
      const result = await verifyAnchorWithContext(home, {
        digest: digests[0] as Uint8Array,
        record: first.records[0],
        confirmations: 21_000,
      });
      expect(result.anchor_status).toBe('verified_with_context');
    } finally {
      clearInterval(ticker);
      home.close();
    }
  });

  it('splits the headers into files and reads them back in order', async () => {
    const result = await exportContextPack(workspace, {
      out: file('split.zip'),
      rpcUrl: anvil.rpcUrl,
      inputs: [file('first.json')],
      headersPerFile: 2,
    });
    const count = result.headers.to - result.headers.from + 1;
    const opened = await openContextPackFile(file('split.zip'));
    expect(opened.manifest.headers.files).toEqual(
      Array.from({ length: Math.ceil(count / 2) }, (_, index) => contextHeadersFile(index)),
    );
    expect(opened.headers.map((header) => header.number)).toEqual(
      Array.from({ length: count }, (_, index) => result.headers.from + index),
    );
    const verified = await verifyWith(
      file('split.zip'),
      first.records[0] as Record<string, unknown>,
      digests[0] as Uint8Array,
      {
        confirmations: count,
      },
    );
    expect(verified.anchor_status).toBe('verified_with_context');
  });

  it('export checks what the chain answers before writing: tries that do not give the header roots, a header that does not hash', async () => {
    let mode: 'none' | 'receipt' | 'header' = 'none';
    const tamper = (method: string, params: unknown[], result: unknown): unknown => {
      if (mode === 'receipt' && method === 'eth_getBlockReceipts' && Array.isArray(result)) {
        const receipt = result[0] as Record<string, string>;
        return [
          { ...receipt, cumulativeGasUsed: `0x${(BigInt(receipt.cumulativeGasUsed as string) + 1n).toString(16)}` },
        ];
      }
      if (mode === 'header' && method === 'eth_getBlockByNumber' && params[1] === false) {
        const block = result as Record<string, string>;
        if (Number(block.number) === first.blockHeight + 1) return { ...block, timestamp: '0x1' };
      }
      return result;
    };
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        void fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          .then((answer) => answer.json())
          .then((answer: unknown) => {
            const asked = JSON.parse(body) as unknown;
            const pairs = Array.isArray(asked) ? asked : [asked];
            const answers = (Array.isArray(answer) ? answer : [answer]) as { id: unknown; result?: unknown }[];
            for (const item of answers) {
              const question = (pairs as { id: unknown; method: string; params: unknown[] }[]).find(
                (candidate) => candidate.id === item.id,
              );
              if (question !== undefined && item.result !== undefined)
                item.result = tamper(question.method, question.params, item.result);
            }
            response.setHeader('content-type', 'application/json');
            response.end(JSON.stringify(Array.isArray(answer) ? answers : answers[0]));
          });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const clean = await exportContextPack(workspace, {
        out: file('proxied.zip'),
        rpcUrl: `${proxy}/v3/secret-provider-key?token=also-secret`,
        inputs: [file('first.json')],
      });
      expect(clean.rpc).toBe(proxy);
      expect((await openContextPackFile(file('proxied.zip'))).manifest.rpc).toBe(proxy);

      mode = 'receipt';
      await expect(
        exportContextPack(workspace, { out: file('bad-receipt.zip'), rpcUrl: proxy, inputs: [file('first.json')] }),
      ).rejects.toMatchObject({ code: 'chain_answer_unusable', message: expect.stringContaining('receiptsRoot') });
      expect(existsSync(file('bad-receipt.zip'))).toBe(false);

      mode = 'header';
      await expect(
        exportContextPack(workspace, { out: file('bad-header.zip'), rpcUrl: proxy, inputs: [file('first.json')] }),
      ).rejects.toMatchObject({
        code: 'chain_answer_unusable',
        message: expect.stringContaining(`The header of block ${first.blockHeight + 1} encodes to hash`),
      });
      expect(existsSync(file('bad-header.zip'))).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('export refuses inputs that name no anchor on chain, and an existing --out', async () => {
    await expect(
      exportContextPack(workspace, { out: pack, rpcUrl: anvil.rpcUrl, inputs: [file('first.json')] }),
    ).rejects.toMatchObject({ code: 'context_out_exists' });
    const ghostHash = `0x${'12'.repeat(32)}`;
    const ghost = {
      ...(first.records[0] as Record<string, unknown>),
      tx_hash: ghostHash,
      svc_anchor: resolvedAnchorUrn({
        network: 'anvil-local',
        block_height: first.blockHeight,
        tx_hash: ghostHash,
        suffix: anchorSuffix(digests[0] as Uint8Array),
      }),
    };
    writeFileSync(file('ghost.json'), JSON.stringify(ghost));
    await expect(
      exportContextPack(workspace, { out: file('ghost.zip'), rpcUrl: anvil.rpcUrl, inputs: [file('ghost.json')] }),
    ).rejects.toMatchObject({ code: 'context_nothing_to_pack' });
    writeFileSync(file('junk.json'), '{"svc_anchor": 3}');
    await expect(
      exportContextPack(workspace, { out: file('junk.zip'), rpcUrl: anvil.rpcUrl, inputs: [file('junk.json')] }),
    ).rejects.toMatchObject({ code: 'anchor_record_malformed' });
  });
});
