/**
 * The evidence domain's conformance (store-interfaces brief, "Conformance tests"): the same
 * tenant's log, receipts and anchors on SQLite and PostgreSQL give the same answers, and the
 * bundle written from either store's snapshot is, byte for byte, the bundle the SQLite export
 * writes from the ledger file (so `evroom import` finds the same). On PostgreSQL, a snapshot is
 * one view: what another node commits while it is open is not in it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didKeyFromEd25519 } from '../../../src-shared/crypto/did-key';
import {
  formatCheckpoint,
  formatNote,
  formatVkey,
  NOTE_ED25519,
  signNoteLine,
} from '../../../src-shared/crypto/signed-note';
import { TlogMemory, tlogLeafHash } from '../../../src-shared/crypto/tlog';
import { createNodeCryptoProvider } from '../../core/node-crypto-provider';
import { exportBundle } from '../../evidence/export-bundle';
import { exportTenantSnapshot } from '../../evidence/export-tenant';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres';
import {
  appendTlogLeaves,
  getReceipt,
  insertAnchor,
  insertReceipts,
  insertTenant,
  insertTlogCheckpoint,
  insertTlogCosignature,
  listAnchors,
  listTlogCosignatures,
  listTlogLeaves,
  listTlogReceiptSha256,
  readTlogNodes,
  tlogLastIndexBefore,
  tlogPeriodIndices,
  type Ledger,
} from '../index';
import { makeReceipt, makeTemporaryDirectory, makeTemporaryLedger, sha256Hex } from '../test-support';
import { MAX_EVIDENCE_PAGE, type EvidenceStore } from './evidence';
import { pgEvidence } from './pg-evidence';
import { openPgPool, type PgPool } from './pg-pool';
import { sqliteEvidence } from './sqlite-evidence';

const provider = createNodeCryptoProvider();
const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const LOG_SEED = sha256(new TextEncoder().encode('log key of the evidence conformance test'));
const LOG_PUBLIC = provider.ed25519PublicKey(LOG_SEED);
const SIGNING_SEED = sha256(new TextEncoder().encode('service key of the evidence conformance test'));
const SIGNING_PUBLIC = provider.ed25519PublicKey(SIGNING_SEED);
const NAME = 'example.com/log';
const T0 = Date.UTC(2026, 0, 1);
/** Past one block of proofs (4,096 leaves), so proofs.json is made from two. */
const SIZE = 4_100;
const SIGNED_SIZES = [1, 7, 4_096, SIZE];

/** Leaf i's issuing time: a second apart, a clock set back every 997th, a few with none. */
function issuedAt(index: number): number | null {
  if (index % 1231 === 17) return null;
  if (index % 997 === 500) return T0 + (index - 3) * 1000 - 1;
  return T0 + index * 1000;
}

let server: TestPostgres;
let source: { ledger: Ledger; dispose: () => void };
const closers: (() => Promise<void> | void)[] = [];

/** The fixture: tenant acme's log of SIZE leaves (other's receipts between them), checkpoints, cosignatures, anchors. */
function buildSource(): { ledger: Ledger; dispose: () => void } {
  const made = makeTemporaryLedger();
  const { ledger } = made;
  const memory = new TlogMemory(sha256);
  ledger.runInTransaction((database) => {
    insertTenant(database, { id: 'acme', tier: 'scale', at: 1 });
    insertTenant(database, { id: 'other', tier: 'scale', at: 1 });
    insertTenant(database, { id: 'quiet', tier: 'free', at: 1 });
    let size = 0;
    for (const signed of SIGNED_SIZES) {
      const batch = Array.from({ length: signed - size }, (_, offset) => {
        const index = size + offset;
        return makeReceipt(`acme-${index}`, {
          issued_at: issuedAt(index),
          key_id: 'did:web:service.example.com',
          ...(index % 50 === 3 ? { receipt_id: null } : {}),
        });
      });
      const rows = insertReceipts(database, batch);
      appendTlogLeaves(
        database,
        sha256,
        'acme',
        batch.map((receipt, offset) => ({
          receipt: (rows[offset] as { id: number }).id,
          leaf_hash: tlogLeafHash(sha256, receipt.raw),
        })),
      );
      for (const receipt of batch) memory.append(tlogLeafHash(sha256, receipt.raw));
      // Another tenant's receipts at the same instants: a period must take acme's only.
      const others = [makeReceipt(`other-${signed}`, { issued_at: issuedAt(size) })];
      const otherRows = insertReceipts(database, others);
      appendTlogLeaves(database, sha256, 'other', [
        {
          receipt: (otherRows[0] as { id: number }).id,
          leaf_hash: tlogLeafHash(sha256, (others[0] as { raw: Uint8Array }).raw),
        },
      ]);
      size = signed;
      const root = memory.root(size);
      const text = formatCheckpoint({ origin: `${NAME}/tenants/acme`, size, rootHash: root, extensions: [] });
      const note = formatNote(text, [signNoteLine(provider, text, NAME, LOG_SEED)]);
      insertTlogCheckpoint(database, { tenant_id: 'acme', tree_size: size, root, note, signed_at: T0 + size });
    }
    // Listed in the order first received (b, then a), not by time or name.
    for (const [at, name] of [
      [2, 'witness.example/b'],
      [1, 'witness.example/a'],
    ] as const)
      insertTlogCosignature(database, {
        tenant_id: 'acme',
        tree_size: SIZE,
        key_name: name,
        key_id: 0x01020304 + at,
        line: `— ${name} AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8w${at}`,
        received_at: T0 + at,
      });
    // Anchors of a few receipts, two batches, one receipt in both.
    const anchored = [5, 6, 4_099].map((index) => sha256Hex(`acme-${index}`));
    for (const [offset, hash] of anchored.entries())
      for (const batch of offset === 1 ? ['2026-01-01T00:00Z', '2026-01-01T00:01Z'] : ['2026-01-01T00:00Z'])
        insertAnchor(
          database,
          {
            svc_anchor: `urn:svc:anchor:pending:${batch}:${hash.slice(0, 16)}`,
            batch_id: batch,
            receipt_sha256: hash,
            record: { svc_anchor: `urn:svc:anchor:pending:${batch}:${hash.slice(0, 16)}`, digest: hash },
            status: 'pending',
          },
          { at: T0 },
        );
  });
  return made;
}

/** The source ledger's rows of the tables the domain reads, copied into a PostgreSQL database. */
async function copyToPostgres(ledger: Ledger, pool: PgPool): Promise<void> {
  const readable = ledger.readable;
  await pool.write(async (writer) => {
    for (const tenant of ['acme', 'other', 'quiet'])
      await writer.query('INSERT INTO tenants (id, tier, created_at) VALUES ($1, $2, 1)', [tenant, 'scale']);
    for (const tenant of ['acme', 'other']) {
      const leaves = listTlogLeaves(readable, tenant, 0, SIZE + 10);
      for (const leaf of leaves) {
        const receipt = getReceipt(readable, leaf.receipt);
        if (receipt === undefined) throw new Error('fixture receipt missing');
        const inserted = await writer.query<{ id: number }>(
          `INSERT INTO issued_receipts (receipt_sha256, raw, ref, format, status, report_json, receipt_id, issued_at,
             issuer_key_id, stored_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
          [
            receipt.receipt_sha256,
            Buffer.from(receipt.raw),
            `tenant:${tenant}`,
            receipt.format,
            receipt.status,
            JSON.stringify(receipt.report),
            receipt.receipt_id,
            receipt.issued_at,
            receipt.issuer_key_id,
            T0,
          ],
        );
        await writer.query(
          'INSERT INTO tlog_leaves (tenant_id, leaf_index, leaf_hash, receipt_id) VALUES ($1, $2, $3, $4)',
          [tenant, leaf.leaf_index, Buffer.from(leaf.leaf_hash), inserted.rows[0]?.id],
        );
      }
      for (let level = 1, width = 2; width <= SIZE; level += 1, width *= 2)
        for (const node of readTlogNodes(readable, tenant, level, 0, Math.floor(SIZE / width)))
          await writer.query('INSERT INTO tlog_nodes (tenant_id, level, node_index, hash) VALUES ($1, $2, $3, $4)', [
            tenant,
            level,
            node.index,
            Buffer.from(node.hash),
          ]);
    }
    for (const size of SIGNED_SIZES) {
      const row = readable
        .prepare('SELECT root, note, signed_at FROM tlog_checkpoints WHERE tenant_id = ? AND tree_size = ?')
        .get('acme', size) as { root: Uint8Array; note: string; signed_at: number };
      await writer.query(
        'INSERT INTO tlog_checkpoints (tenant_id, tree_size, root, note, signed_at) VALUES ($1, $2, $3, $4, $5)',
        ['acme', size, Buffer.from(row.root), row.note, row.signed_at],
      );
    }
    for (const line of listTlogCosignatures(readable, 'acme', SIZE))
      await writer.query(
        `INSERT INTO tlog_cosignatures (tenant_id, tree_size, key_name, key_id, line, received_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        ['acme', SIZE, line.key_name, line.key_id, line.line, line.received_at],
      );
    for (const anchor of listAnchors(readable, { limit: 1000 }).rows)
      await writer.query(
        `INSERT INTO anchors (svc_anchor, pending_svc_anchor, batch_id, receipt_sha256, record_json, status, created_at,
           updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          anchor.svc_anchor,
          anchor.pending_svc_anchor,
          anchor.batch_id,
          anchor.receipt_sha256,
          JSON.stringify(anchor.record),
          anchor.status,
          anchor.created_at,
          anchor.updated_at,
        ],
      );
  });
}

let pgPool: PgPool;
const stores: Record<'sqlite' | 'postgres', () => EvidenceStore> = {
  sqlite: () => sqliteEvidence({ ledger: source.ledger, sha256 }),
  postgres: () => pgEvidence({ pool: pgPool, sha256 }),
};

beforeAll(async () => {
  server = await startTestPostgres();
  closers.push(() => server.stop());
  source = buildSource();
  closers.push(source.dispose);
  pgPool = await openPgPool(await server.createDatabase());
  closers.push(() => pgPool.close());
  await copyToPostgres(source.ledger, pgPool);
}, 180_000);

afterAll(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

const iso = (time: number): string => new Date(time).toISOString();
const PERIODS: [number | null, number | null][] = [
  [null, null],
  [T0, null],
  [null, T0 + SIZE * 1000],
  [T0 + 1000 * 1000, T0 + 2500 * 1000],
  [T0 + 497 * 1000, T0 + 499 * 1000],
  [T0 + 16 * 1000, T0 + 19 * 1000],
  [T0 + 497 * 1000 + 500, T0 + 497 * 1000 + 600],
  [T0 + (SIZE + 10) * 1000, null],
  [0, 1],
];

describe.each(['sqlite', 'postgres'] as const)('the evidence domain on %s', (engine) => {
  it('knows the tenants', async () => {
    const store = stores[engine]();
    expect(await store.hasTenant('acme')).toBe(true);
    expect(await store.hasTenant('quiet')).toBe(true);
    expect(await store.hasTenant('nobody')).toBe(false);
    await expect(store.hasTenant('not a tenant!')).rejects.toThrow(RangeError);
  });

  it('reads what the ledger’s repositories read, from one snapshot', async () => {
    const readable = source.ledger.readable;
    await stores[engine]().snapshot('acme', async (reader) => {
      const checkpoint = await reader.checkpoint();
      expect(checkpoint?.tree_size).toBe(SIZE);
      expect(checkpoint?.note).toContain(`${NAME}/tenants/acme\n${SIZE}\n`);
      expect((await reader.checkpointAt(7))?.tree_size).toBe(7);
      expect(await reader.checkpointAt(8)).toBeUndefined();
      expect(await reader.cosignatures(SIZE)).toEqual(listTlogCosignatures(readable, 'acme', SIZE));
      expect((await reader.cosignatures(SIZE)).map((line) => line.key_name)).toEqual([
        'witness.example/b',
        'witness.example/a',
      ]);
      expect(await reader.cosignatures(7)).toEqual([]);
      for (const [since, until] of PERIODS)
        expect(await reader.periodIndices(SIZE, { since, until })).toEqual(
          tlogPeriodIndices(readable, 'acme', SIZE, { since, until }),
        );
      expect(await reader.periodIndices(7, { since: null, until: null })).toEqual({ first: 0, last: 6 });
      for (const before of [T0, T0 + 1, T0 + 17 * 1000 + 1, T0 + 498 * 1000, T0 + 3000 * 1000, T0 + 10 ** 9])
        expect(await reader.lastIndexBefore(SIZE, before)).toBe(tlogLastIndexBefore(readable, 'acme', SIZE, before));
      const page = await reader.leafReceipts(4_090, 4_100);
      expect(page.map((row) => row.leaf_index)).toEqual(Array.from({ length: 10 }, (_, at) => 4_090 + at));
      for (const row of page) {
        const stored = getReceipt(readable, row.receipt_sha256);
        expect(row).toEqual({
          leaf_index: row.leaf_index,
          receipt_sha256: stored?.receipt_sha256,
          receipt_id: stored?.receipt_id,
          issuer_key_id: stored?.issuer_key_id,
          format: stored?.format,
          raw: new Uint8Array(stored?.raw ?? []),
          issued_at: stored?.issued_at,
        });
        // Plain bytes on both engines, never a driver's Buffer.
        expect(Buffer.isBuffer(row.raw)).toBe(false);
      }
      expect(await reader.leafReceipts(SIZE, SIZE + 5)).toEqual([]);
      await expect(reader.leafReceipts(0, MAX_EVIDENCE_PAGE + 1)).rejects.toThrow(RangeError);
      expect(await reader.leafHashes(0, 4_096)).toEqual(listTlogReceiptSha256(readable, 'acme', 0, 4_096));
      for (const [level, from, to] of [
        [0, 4_000, 4_100],
        [3, 500, 513],
        [12, 0, 2],
        [12, 1, 5],
      ] as const)
        expect(
          (await reader.nodes(level, from, to)).map((node) => ({ ...node, hash: new Uint8Array(node.hash) })),
        ).toEqual(
          readTlogNodes(readable, 'acme', level, from, to).map((node) => ({
            ...node,
            hash: new Uint8Array(node.hash),
          })),
        );
      const hashes = [4_099, 5, 6, 7].map((index) => sha256Hex(`acme-${index}`));
      const anchors = await reader.anchors(hashes);
      expect(anchors.map((anchor) => [anchor.batch_id, anchor.receipt_sha256])).toEqual([
        ['2026-01-01T00:00Z', hashes[0]],
        ['2026-01-01T00:00Z', hashes[1]],
        ['2026-01-01T00:00Z', hashes[2]],
        ['2026-01-01T00:01Z', hashes[2]],
      ]);
      expect(anchors[0]?.record).toEqual({
        svc_anchor: `urn:svc:anchor:pending:2026-01-01T00:00Z:${hashes[0]?.slice(0, 16)}`,
        digest: hashes[0],
      });
      await expect(reader.anchors(['NOT HEX'])).rejects.toThrow(RangeError);
    });
    // A tenant whose log was never signed has no checkpoint; the export refuses it (LogEvidenceError).
    expect(await stores[engine]().snapshot('quiet', (reader) => reader.checkpoint())).toBeUndefined();
  });

  it('writes, from its snapshot, the very bundle the SQLite export writes from the ledger file', async () => {
    const { directory, cleanup } = makeTemporaryDirectory('evroom-evidence-conformance-');
    closers.push(cleanup);
    const signingKey = { key_id: didKeyFromEd25519(SIGNING_PUBLIC), seed: SIGNING_SEED, public_key: SIGNING_PUBLIC };
    const logKey = {
      key_id: didKeyFromEd25519(LOG_PUBLIC),
      public_key: LOG_PUBLIC,
      note_key_name: NAME,
      vkey: formatVkey(sha256, NAME, NOTE_ED25519, LOG_PUBLIC),
    };
    const now = new Date(T0 + 10 ** 8);
    const periods: [string | null, string | null, number[]?][] = [
      [null, null, [7, 4_096]],
      [iso(T0 + 1000 * 1000), iso(T0 + 1200 * 1000)],
      [iso(T0 + 4_000 * 1000), null, [1]],
      [iso(T0 + 497 * 1000 + 500), iso(T0 + 497 * 1000 + 600)],
    ];
    for (const [at, [since, until, consistentWith]] of periods.entries()) {
      const log = { tenantId: 'acme', since, until, key: logKey, ...(consistentWith ? { consistentWith } : {}) };
      const expected = path.join(directory, `ledger-${engine}-${at}.zip`);
      const fromFile = await exportBundle(source.ledger, {
        out: expected,
        dataDirectory: directory,
        tenantId: 'acme',
        signingKey,
        log,
        now,
      });
      const out = path.join(directory, `store-${engine}-${at}.zip`);
      const fromStore = await exportTenantSnapshot(stores[engine](), {
        out,
        dataDirectory: directory,
        tenantId: 'acme',
        signingKey,
        log,
        now,
      });
      expect({ ...fromStore, file: expected }).toEqual(fromFile);
      expect(fs.readFileSync(out).equals(fs.readFileSync(expected))).toBe(true);
    }
    // A size never signed: refused before anything is written.
    const refused = path.join(directory, `refused-${engine}.zip`);
    await expect(
      exportTenantSnapshot(stores[engine](), {
        out: refused,
        dataDirectory: directory,
        tenantId: 'acme',
        signingKey,
        log: { tenantId: 'acme', since: null, until: null, key: logKey, consistentWith: [8] },
        now,
      }),
    ).rejects.toThrow(/signed no checkpoint at size 8/);
    expect(fs.existsSync(refused)).toBe(false);
  }, 120_000);
});

describe('the evidence domain on postgres, with other nodes writing', () => {
  it('reads one snapshot: what commits while it is open is not in it', async () => {
    const store = pgEvidence({ pool: pgPool, sha256 });
    const seen = await store.snapshot('acme', async (reader) => {
      const before = await reader.checkpoint();
      // Another node signs a later checkpoint and logs one more receipt meanwhile.
      await pgPool.write(async (writer) => {
        const inserted = await writer.query<{ id: number }>(
          `INSERT INTO issued_receipts (receipt_sha256, raw, ref, format, status, report_json, issued_at, stored_at)
           VALUES ($1, $2, 'tenant:acme', 'x', 'valid', '{}', $3, $3) RETURNING id`,
          ['f'.repeat(64), Buffer.from('{"late":true}'), T0 + SIZE * 1000],
        );
        await writer.query(
          'INSERT INTO tlog_leaves (tenant_id, leaf_index, leaf_hash, receipt_id) VALUES ($1, $2, $3, $4)',
          ['acme', SIZE, Buffer.alloc(32, 1), inserted.rows[0]?.id],
        );
        await writer.query(
          "INSERT INTO tlog_checkpoints (tenant_id, tree_size, root, note, signed_at) VALUES ('acme', $1, $2, 'n', 1)",
          [SIZE + 1, Buffer.alloc(32, 2)],
        );
      });
      return {
        size: before?.tree_size,
        after: (await reader.checkpoint())?.tree_size,
        leaves: await reader.leafReceipts(SIZE - 1, SIZE + 1),
        period: await reader.periodIndices(SIZE + 1, { since: T0 + (SIZE - 1) * 1000, until: null }),
      };
    });
    expect(seen.size).toBe(SIZE);
    expect(seen.after).toBe(SIZE);
    expect(seen.leaves.map((row) => row.leaf_index)).toEqual([SIZE - 1]);
    expect(seen.period).toEqual({ first: SIZE - 1, last: SIZE - 1 });
    // A new snapshot sees it.
    expect(await store.snapshot('acme', async (reader) => (await reader.checkpoint())?.tree_size)).toBe(SIZE + 1);
    // Back as the other cases expect it.
    await pgPool.write(async (writer) => {
      await writer.query("DELETE FROM tlog_checkpoints WHERE tenant_id = 'acme' AND tree_size = $1", [SIZE + 1]);
      await writer.query("DELETE FROM tlog_leaves WHERE tenant_id = 'acme' AND leaf_index = $1", [SIZE]);
      await writer.query('DELETE FROM issued_receipts WHERE receipt_sha256 = $1', ['f'.repeat(64)]);
    });
  });

  it('answers the function’s error, and the snapshot ends with it', async () => {
    const store = pgEvidence({ pool: pgPool, sha256 });
    await expect(
      store.snapshot('acme', async (reader) => {
        await reader.checkpoint();
        throw new Error('the caller stopped');
      }),
    ).rejects.toThrow('the caller stopped');
    expect(await store.snapshot('acme', async (reader) => (await reader.checkpoint())?.tree_size)).toBe(SIZE);
  });
});
