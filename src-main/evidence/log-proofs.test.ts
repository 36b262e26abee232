import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hexEncode } from '../../src-shared/crypto';
import { formatCheckpoint, formatNote, signNoteLine } from '../../src-shared/crypto/signed-note';
import { TlogMemory, tlogLeafHash } from '../../src-shared/crypto/tlog';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import {
  appendTlogLeaves,
  insertReceipts,
  insertTenant,
  insertTlogCheckpoint,
  tlogLastIndexBefore,
  tlogNodeSource,
  tlogPeriodIndices,
  readTlogNodes,
  type Ledger,
} from '../ledger/index';
import { makeReceipt, makeTemporaryDirectory, makeTemporaryLedger } from '../ledger/test-support';
import { exportBundle } from './export-bundle';
import { sqliteEvidence } from '../ledger/store/sqlite-evidence';
import { readLogEvidence, readSnapshotLogEvidence } from './log-evidence';
import { BLOCK_LEAVES, forEachInclusionProof, inclusionProofLength } from './log-proofs';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

const provider = createNodeCryptoProvider();
const LOG_SEED = provider.sha256(new TextEncoder().encode('log key of the fast-path test'));
const NAME = 'example.com/log';
const T0 = Date.UTC(2026, 0, 1);

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/**
 * The issued time of leaf i: a second apart, but not always in order (a clock set back every
 * 997th leaf), and a few receipts with none.
 */
function issuedAt(index: number): number | null {
  if (index % 1231 === 17) return null;
  if (index % 997 === 500) return T0 + (index - 3) * 1000 - 1;
  return T0 + index * 1000;
}

interface Model {
  ledger: Ledger;
  memory: TlogMemory;
  times: (number | null)[];
  raws: Uint8Array[];
  shas: string[];
}

function makeModel(tenant: string): Model {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  made.ledger.runInTransaction((database) => insertTenant(database, { id: tenant, tier: 'scale', at: 1 }));
  return { ledger: made.ledger, memory: new TlogMemory(sha256), times: [], raws: [], shas: [] };
}

/** Appends leaves up to `size` to the ledger's log and the memory log, and signs that size. */
function growTo(model: Model, tenant: string, size: number): void {
  const from = model.times.length;
  const batch = Array.from({ length: size - from }, (_, offset) => {
    const index = from + offset;
    return makeReceipt(`${tenant}-${index}`, { issued_at: issuedAt(index) });
  });
  model.ledger.runInTransaction((database) => {
    const rows = insertReceipts(database, batch);
    const leaves = batch.map((receipt, offset) => ({
      receipt: (rows[offset] as { id: number }).id,
      leaf_hash: tlogLeafHash(sha256, receipt.raw),
    }));
    appendTlogLeaves(database, sha256, tenant, leaves);
    for (const [offset, receipt] of batch.entries()) {
      model.memory.append((leaves[offset] as { leaf_hash: Uint8Array }).leaf_hash);
      model.times.push(issuedAt(from + offset));
      model.raws.push(receipt.raw);
      model.shas.push(receipt.receipt_sha256);
    }
    const root = model.memory.root(size);
    const text = formatCheckpoint({ origin: `${NAME}/tenants/${tenant}`, size, rootHash: root, extensions: [] });
    const note = formatNote(text, [signNoteLine(provider, text, NAME, LOG_SEED)]);
    insertTlogCheckpoint(database, { tenant_id: tenant, tree_size: size, root, note, signed_at: 1 });
  });
}

/** proofs.json as the straightforward reading of the interfaces brief gives it, from TlogMemory. */
function expectedProofs(model: Model, since: number | null, until: number | null): { text: string; rows: number } {
  const size = model.times.length;
  const inPeriod = (time: number | null): boolean =>
    since === null && until === null
      ? true
      : time !== null && (since === null || time >= since) && (until === null || time < until);
  let first: number | null = null;
  let last: number | null = null;
  for (let index = 0; index < size; index += 1) {
    if (!inPeriod(model.times[index] ?? null)) continue;
    first ??= index;
    last = index;
  }
  let before: number | null;
  let after: number | null;
  if (first !== null && last !== null) {
    before = first > 0 ? first - 1 : null;
    after = last + 1 < size ? last + 1 : null;
  } else {
    before = null;
    if (since !== null)
      for (let index = 0; index < size; index += 1) {
        const time = model.times[index];
        if (time !== null && time !== undefined && time < since) before = index;
      }
    const next = before === null ? 0 : before + 1;
    after = next < size ? next : null;
  }
  const proof = (index: number): string[] => model.memory.inclusionProof(index, size).map(hexEncode);
  const boundary = (index: number | null): unknown =>
    index === null
      ? null
      : {
          index,
          receipt: JSON.parse(new TextDecoder().decode(model.raws[index])) as unknown,
          inclusion: proof(index),
        };
  const leaves = [];
  if (first !== null && last !== null)
    for (let index = first; index <= last; index += 1)
      leaves.push({ index, receipt_sha256: model.shas[index], inclusion: proof(index) });
  const iso = (time: number | null): string | null => (time === null ? null : new Date(time).toISOString());
  const proofs = {
    format: 'evroom.log-evidence/1',
    origin: `${NAME}/tenants/acme`,
    key_name: NAME,
    tree_size: size,
    root: hexEncode(model.memory.root(size)),
    period: { since: iso(since), until: iso(until) },
    first_index: first,
    last_index: last,
    leaves,
    before: boundary(before),
    after: boundary(after),
  };
  return { text: `${JSON.stringify(proofs, null, 2)}\n`, rows: leaves.length };
}

async function check(model: Model, since: number | null, until: number | null): Promise<void> {
  const iso = (time: number | null): string | null => (time === null ? null : new Date(time).toISOString());
  const evidence = readLogEvidence(model.ledger.readable, sha256, {
    tenantId: 'acme',
    since: iso(since),
    until: iso(until),
  });
  const expected = expectedProofs(model, since, until);
  expect(evidence.proofs_bytes).toBe(Buffer.byteLength(expected.text));
  const made = new TextDecoder().decode(evidence.proofs());
  // Compared as text: a mismatch shows where.
  expect(made).toBe(expected.text);
  expect(evidence.receipts).toHaveLength(expected.rows);
  // The same bytes through the store's snapshot (the path a PostgreSQL store's export takes).
  const store = sqliteEvidence({ ledger: model.ledger, sha256 });
  const snapshot = await store.snapshot('acme', async (reader) => {
    const read = await readSnapshotLogEvidence(reader, sha256, {
      tenantId: 'acme',
      since: iso(since),
      until: iso(until),
    });
    return { ...read, text: new TextDecoder().decode(await read.proofs()) };
  });
  expect(snapshot.proofs_bytes).toBe(evidence.proofs_bytes);
  expect(snapshot.text).toBe(expected.text);
  expect(snapshot.range === null ? 0 : snapshot.range.last - snapshot.range.first + 1).toBe(expected.rows);
}

describe('a period’s log evidence, made in bulk', () => {
  it('is byte for byte what TlogMemory and a plain scan give, at every awkward edge and size', async () => {
    const model = makeModel('acme');
    const at = (index: number): number => T0 + index * 1000;
    // Sizes around the block and a power of two, and an odd one.
    for (const size of [1, 2, 3, 5, BLOCK_LEAVES - 1, BLOCK_LEAVES, BLOCK_LEAVES + 1, 6007]) {
      growTo(model, 'acme', size);
      const periods: [number | null, number | null][] = [
        [null, null],
        [at(0), null],
        [null, at(size)],
        [at(0), at(1)],
        [at(size - 1), null],
        [at(size - 1), at(size + 5)],
        [at(size + 10), null], // after every leaf: empty, before = the last
        [null, at(0)], // before every leaf: empty
        [at(-10), at(0)],
        [at(Math.floor(size / 2)), at(Math.floor(size / 2)) + 500], // one leaf
        [at(Math.floor(size / 2)) + 1, at(Math.floor(size / 2)) + 999], // an empty gap inside
        [at(BLOCK_LEAVES - 3), at(BLOCK_LEAVES + 2)], // across the block's edge
        [at(1000), at(2500)],
        [at(497), at(499)], // around a receipt issued out of order (index 500)
        [at(16), at(19)], // around a receipt without a time (index 17)
        // Empty, and the last leaf issued before it (500) comes after one issued later (497).
        [at(497) + 500, at(497) + 600],
        [0, 1], // before any time
      ];
      for (const [since, until] of periods) await check(model, since, until);
    }
  }, 120_000);

  it('reads the same proofs as tlogInclusionProof over the store for any run of leaves', () => {
    const model = makeModel('acme');
    growTo(model, 'acme', 300);
    const database = model.ledger.readable;
    const node = tlogNodeSource(database, 'acme');
    for (const size of [300]) {
      for (const [first, last] of [
        [0, 299],
        [0, 0],
        [299, 299],
        [127, 128],
        [256, 299],
      ] as const) {
        const seen: number[] = [];
        forEachInclusionProof(
          sha256,
          size,
          first,
          last,
          (level, from, to) => readTlogNodes(database, 'acme', level, from, to),
          node,
          (index, proof) => {
            seen.push(index);
            expect(proof).toEqual(model.memory.inclusionProof(index, size).map(hexEncode));
            expect(proof).toHaveLength(inclusionProofLength(index, size));
          },
        );
        expect(seen).toEqual(Array.from({ length: last - first + 1 }, (_, offset) => first + offset));
      }
    }
    expect(() =>
      forEachInclusionProof(
        sha256,
        300,
        5,
        300,
        () => [],
        node,
        () => {},
      ),
    ).toThrow(RangeError);
  });

  it('finds a period’s edges exactly, whatever the order of issued times', () => {
    const model = makeModel('acme');
    growTo(model, 'acme', 50);
    const database = model.ledger.readable;
    expect(tlogPeriodIndices(database, 'acme', 50, { since: T0 + 10_000, until: T0 + 12_000 })).toEqual({
      first: 10,
      last: 11,
    });
    expect(tlogLastIndexBefore(database, 'acme', 50, T0 + 10_000)).toBe(9);
    expect(tlogLastIndexBefore(database, 'acme', 50, T0)).toBeNull();
  });

  it('refuses, before writing anything, a bundle whose proofs.json the import would refuse (over 64 MiB)', async () => {
    const model = makeModel('acme');
    // About 1.35 KB a leaf at this size (16 hashes a proof): 52,000 leaves are past 64 MiB.
    for (const size of [13_000, 26_000, 39_000, 52_000]) growTo(model, 'acme', size);
    const { directory, cleanup } = makeTemporaryDirectory('evroom-log-limit-');
    cleanups.push(cleanup);
    const out = path.join(directory, 'evidence.zip');
    const evidence = readLogEvidence(model.ledger.readable, sha256, { tenantId: 'acme', since: null, until: null });
    expect(evidence.proofs_bytes).toBeGreaterThan(64 * 1024 ** 2);
    await expect(
      exportBundle(model.ledger, {
        out,
        dataDirectory: directory,
        log: {
          tenantId: 'acme',
          since: null,
          until: null,
          key: { key_id: 'did:key:z6Mk', public_key: new Uint8Array(32), note_key_name: NAME, vkey: 'v' },
        },
      }),
    ).rejects.toMatchObject({
      code: 'zip_entry_too_large',
      message: expect.stringMatching(/would be \d+ bytes \(52000 leaves\).*shorter period/) as unknown,
    });
    // Nothing was written: no bundle, no partial file beside it, not even the signing key.
    expect(fs.readdirSync(directory)).toEqual([]);
  }, 120_000);
});
