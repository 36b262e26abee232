/**
 * The payments domain on both engines (the same cases: a real SQLite file, a real PostgreSQL
 * database), and on PostgreSQL two stores on one database (two nodes) issuing one transaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TERM_MS } from '../../../src-shared/api/payments';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres';
import { listAuditEntries } from '../audit-log';
import { openLedger } from '../open-ledger';
import { queryAll } from '../database';
import { insertTenant } from '../service-state';
import { sql } from '../sql';
import type { ClusterStore } from './cluster';
import { LeaseLostError } from './errors';
import { pgCluster } from './pg-cluster';
import { pgPayments } from './pg-payments';
import { openPgPool, type PgPool } from './pg-pool';
import { PAYMENTS_LEASE, type PaymentKeyIssue, type PaymentStore } from './payments';
import { sqliteCluster } from './sqlite-cluster';
import { sqlitePayments } from './sqlite-payments';

interface Made {
  payments: PaymentStore;
  cluster: ClusterStore;
  /** The keys stored for a transaction (by payment_tx), as tenant and expiry. */
  keysOf(tx: string): Promise<{ tenant_id: string; expires_at: number | null }[]>;
  /** The audit rows' actions and subjects, oldest first. */
  audit(): Promise<string[]>;
  /** Makes a tenant as an operator would (no payment). */
  operatorTenant(id: string): Promise<void>;
  /** Another store on the same data (PostgreSQL: a second node's pool). */
  another?: () => Promise<PaymentStore>;
}

let server: TestPostgres | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await server?.stop();
});

function makeSqlite(): Promise<Made> {
  const folder = mkdtempSync(join(tmpdir(), 'evroom-payments-store-'));
  const ledger = openLedger(join(folder, 'ledger.db'));
  cleanups.push(() => {
    ledger.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const deps = { ledger, sha256 };
  return Promise.resolve({
    payments: sqlitePayments(deps),
    cluster: sqliteCluster(deps),
    keysOf: (tx) =>
      Promise.resolve(
        queryAll<{ tenant_id: string; expires_at: number | null }>(
          ledger.readable,
          sql`SELECT tenant_id, expires_at FROM api_keys WHERE payment_tx = ${tx} ORDER BY id`,
        ),
      ),
    audit: () =>
      Promise.resolve(
        listAuditEntries(ledger.readable, { direction: 'asc', limit: 1000 }).map(
          (entry) => `${entry.action} ${entry.subject}`,
        ),
      ),
    operatorTenant: (id) => {
      insertTenant(ledger.writable, { id, tier: 'pro', at: 1 });
      return Promise.resolve();
    },
  });
}

async function pgPool(url: string): Promise<PgPool> {
  const pool = await openPgPool(url, { max: 3 });
  cleanups.push(() => pool.close());
  return pool;
}

async function makePg(): Promise<Made> {
  server ??= await startTestPostgres();
  const url = await server.createDatabase();
  const pool = await pgPool(url);
  return {
    payments: pgPayments({ pool, sha256 }),
    cluster: pgCluster({ pool, sha256 }),
    keysOf: (tx) =>
      pool.read(
        async (reader) =>
          (
            await reader.query<{ tenant_id: string; expires_at: number | null }>(
              'SELECT tenant_id, expires_at FROM api_keys WHERE payment_tx = $1 ORDER BY id',
              [tx],
            )
          ).rows,
      ),
    audit: () =>
      pool.read(async (reader) =>
        (
          await reader.query<{ action: string; subject: string }>('SELECT action, subject FROM audit_log ORDER BY id')
        ).rows.map((row) => `${row.action} ${row.subject}`),
      ),
    operatorTenant: async (id) => {
      await pool.write((writer) =>
        writer.query("INSERT INTO tenants (id, tier, created_at) VALUES ($1, 'pro', 1)", [id]),
      );
    },
    another: async () => pgPayments({ pool: await pgPool(url), sha256 }),
  };
}

const NETWORK = 'anvil-local';
const TOKEN = `0x${'a'.repeat(40)}`;
const TREASURY = `0x${'b'.repeat(40)}`;
const T0 = Date.UTC(2026, 10, 26);
let txCount = 0;

/** A fresh transaction hash. */
function newTx(): string {
  txCount += 1;
  return `0x${txCount.toString(16).padStart(64, '0')}`;
}

function waiting(tx: string, contact = 'buyer@example.com', at = T0) {
  return {
    network: NETWORK,
    tx_hash: tx,
    block_number: 7,
    block_hash: `0x${'c'.repeat(64)}`,
    from: `0x${'d'.repeat(40)}`,
    token: TOKEN,
    amount: 99_000_000n,
    tier: 'pro' as const,
    term: 'month' as const,
    contact,
    issuer_did: null,
    state: 'pending_confirmations' as const,
    reason: 'Paid 99 for a pro month.',
    at,
  };
}

function issueOf(tx: string, overrides: Partial<PaymentKeyIssue> = {}): PaymentKeyIssue {
  const contact = overrides.contact ?? 'buyer@example.com';
  const slug = contact.replace(/[^a-z0-9.-]/g, '-');
  return {
    network: NETWORK,
    tx_hash: tx,
    tier: 'pro',
    term: 'month',
    contact,
    tenant_ids: [`pay-pro-${slug}`, `pay-pro-${slug}-0123456789abcdef`],
    key_sha256: Buffer.from(sha256(new TextEncoder().encode(tx))).toString('hex'),
    key_prefix: `svc_pro_${tx.slice(-8)}`,
    term_ms: TERM_MS.month,
    delivery_channel: 'outbox',
    delivery_to: contact,
    reason: (tenant, end) => `Issued to ${tenant} until ${end}.`,
    at: T0 + 1000,
    ...overrides,
  };
}

describe.each([
  ['sqlite', makeSqlite],
  ['postgres', makePg],
])('payments on %s', (_engine, make) => {
  let made: Made;
  beforeAll(async () => {
    made = await make();
  }, 120_000);

  it('records a transaction once: seen again, it is unchanged and no second audit row is written', async () => {
    const { payments } = made;
    const tx = newTx();
    const first = await payments.record(waiting(tx));
    expect(first.created).toBe(true);
    expect(first.record).toMatchObject({
      network: NETWORK,
      tx_hash: tx,
      block_number: 7,
      from: `0x${'d'.repeat(40)}`,
      amount: '99000000',
      tier: 'pro',
      term: 'month',
      state: 'pending_confirmations',
      tenant_id: null,
      delivery_state: 'none',
      delivery_attempts: 0,
      sealed: false,
      seen_at: T0,
      updated_at: T0,
    });
    const again = await payments.record({ ...waiting(tx, 'other@example.com', T0 + 5), state: 'underpaid' });
    expect(again).toEqual({ record: first.record, created: false });
    expect(await payments.getPayment(NETWORK, tx)).toEqual(first.record);
    expect(await payments.findByTx(tx)).toEqual([first.record]);
    expect((await made.audit()).filter((line) => line === `payment-record ${tx}`)).toHaveLength(1);
  });

  it('refuses bad input and an issued state, writing nothing', async () => {
    const { payments } = made;
    const tx = newTx();
    await expect(payments.record({ ...waiting(tx), state: 'issued' })).rejects.toThrow(RangeError);
    await expect(payments.record({ ...waiting(tx), tx_hash: '0x12' })).rejects.toThrow(RangeError);
    await expect(payments.record({ ...waiting(tx), from: 'nobody' })).rejects.toThrow(RangeError);
    await expect(payments.getPayment(NETWORK, tx)).resolves.toBeUndefined();
    await expect(payments.list({ limit: 0 })).rejects.toThrow(RangeError);
    await expect(payments.findByTx('nope')).rejects.toThrow(RangeError);
  });

  it('settles and moves only a waiting payment; a final state stays final', async () => {
    const { payments } = made;
    const tx = newTx();
    await payments.record(waiting(tx));
    const moved = { network: NETWORK, tx_hash: tx, block_number: 9, block_hash: `0x${'e'.repeat(64)}`, at: T0 + 1 };
    expect(await payments.movePending(moved)).toBe(true);
    expect(await payments.movePending(moved)).toBe(false);
    expect(await payments.getPayment(NETWORK, tx)).toMatchObject({ block_number: 9, updated_at: T0 + 1 });
    expect((await payments.unconfirmed(NETWORK)).map((payment) => payment.tx_hash)).toContain(tx);
    const drop = { network: NETWORK, tx_hash: tx, state: 'dropped' as const, reason: 'Gone.', at: T0 + 2 };
    expect(await payments.settle(drop)).toBe(true);
    expect(await payments.settle({ ...drop, state: 'underpaid', reason: 'No.' })).toBe(false);
    expect(await payments.getPayment(NETWORK, tx)).toMatchObject({ state: 'dropped', reason: 'Gone.' });
    expect((await payments.unconfirmed(NETWORK)).map((payment) => payment.tx_hash)).not.toContain(tx);
    await expect(payments.settle({ ...drop, state: 'issued' })).rejects.toThrow(RangeError);
    expect(await made.audit()).toContain(`payment-record ${tx}`);
  });

  it('issues one key per transaction: tenant made, key bound, payment issued; again, nothing', async () => {
    const { payments } = made;
    const tx = newTx();
    await payments.record(waiting(tx, 'one@example.com'));
    const result = await payments.issueKey(issueOf(tx, { contact: 'one@example.com' }));
    const end = T0 + 1000 + TERM_MS.month;
    expect(result).toMatchObject({
      outcome: 'issued',
      record: {
        state: 'issued',
        tenant_id: 'pay-pro-one-example.com',
        key_prefix: `svc_pro_${tx.slice(-8)}`,
        expires_at: end,
        delivery_channel: 'outbox',
        delivery_state: 'pending',
        delivery_to: 'one@example.com',
        delivery_next_at: T0 + 1000,
        reason: `Issued to pay-pro-one-example.com until ${end}.`,
        updated_at: T0 + 1000,
      },
    });
    expect(await made.keysOf(tx)).toEqual([{ tenant_id: 'pay-pro-one-example.com', expires_at: end }]);
    expect(await payments.issueKey(issueOf(tx, { contact: 'one@example.com' }))).toMatchObject({
      outcome: 'not_waiting',
      record: { state: 'issued' },
    });
    expect(await made.keysOf(tx)).toHaveLength(1);
    const audit = await made.audit();
    expect(audit).toContain('tenant-create pay-pro-one-example.com');
    expect(audit.filter((line) => line === `payment-issue ${tx}`)).toHaveLength(1);
    // Never recorded: nothing to issue.
    expect(await payments.issueKey(issueOf(newTx()))).toEqual({ outcome: 'not_waiting', record: undefined });
  });

  it("extends a contact's term with its next payment, and every key it bought; another contact's tenant is not theirs", async () => {
    const { payments } = made;
    const [first, second] = [newTx(), newTx()];
    await payments.record(waiting(first, 'renew@example.com'));
    await payments.record(waiting(second, 'renew@example.com'));
    await payments.issueKey(issueOf(first, { contact: 'renew@example.com' }));
    const result = await payments.issueKey(
      issueOf(second, { contact: 'renew@example.com', term: 'year', term_ms: TERM_MS.year, at: T0 + 5000 }),
    );
    const end = T0 + 1000 + TERM_MS.month + TERM_MS.year;
    expect(result).toMatchObject({
      outcome: 'issued',
      record: { tenant_id: 'pay-pro-renew-example.com', expires_at: end },
    });
    expect(await made.keysOf(first)).toEqual([{ tenant_id: 'pay-pro-renew-example.com', expires_at: end }]);
    expect(await made.keysOf(second)).toEqual([{ tenant_id: 'pay-pro-renew-example.com', expires_at: end }]);

    // The short id is an operator's tenant: the long form; both taken: nothing issued.
    await made.operatorTenant('pay-pro-taken.example');
    const taken = newTx();
    await payments.record(waiting(taken, 'taken.example'));
    expect(await payments.issueKey(issueOf(taken, { contact: 'taken.example' }))).toMatchObject({
      outcome: 'issued',
      record: { tenant_id: 'pay-pro-taken.example-0123456789abcdef' },
    });
    const other = newTx();
    await payments.record(waiting(other, 'other.example'));
    await made.operatorTenant('pay-pro-other.example');
    await made.operatorTenant('pay-pro-other.example-0123456789abcdef');
    expect(await payments.issueKey(issueOf(other, { contact: 'other.example' }))).toEqual({
      outcome: 'tenant_taken',
      tenant_id: 'pay-pro-other.example-0123456789abcdef',
    });
    expect(await payments.getPayment(NETWORK, other)).toMatchObject({ state: 'pending_confirmations' });
    expect(await made.keysOf(other)).toEqual([]);
  });

  it('delivers: due, failed with its error and next try, delivered with a sealed envelope, once', async () => {
    const { payments } = made;
    const tx = newTx();
    await payments.record(waiting(tx, 'deliver@example.com'));
    await payments.issueKey(issueOf(tx, { contact: 'deliver@example.com', delivery_channel: 'sealed' }));
    const due = (now: number): Promise<string[]> =>
      payments.dueDeliveries(now).then((list) => list.map((payment) => payment.tx_hash));
    expect(await due(T0 + 999)).not.toContain(tx);
    expect(await due(T0 + 1000)).toContain(tx);
    const failure = { network: NETWORK, tx_hash: tx, error: 'relay refused', next_at: T0 + 3000, at: T0 + 2000 };
    expect(await payments.deliveryFailed(failure)).toBe(true);
    expect(await payments.getPayment(NETWORK, tx)).toMatchObject({
      delivery_attempts: 1,
      delivery_last_error: 'relay refused',
      delivery_next_at: T0 + 3000,
    });
    expect(await due(T0 + 2999)).not.toContain(tx);
    expect(await payments.sealedEnvelope(tx)).toBeUndefined();
    const done = {
      network: NETWORK,
      tx_hash: tx,
      channel: 'sealed' as const,
      to: 'deliver@example.com',
      sealed: { v: 1, tx_hash: tx },
      at: T0 + 3000,
    };
    await expect(payments.delivered({ ...done, sealed: undefined })).rejects.toThrow(RangeError);
    expect(await payments.delivered(done)).toBe(true);
    expect(await payments.delivered(done)).toBe(false);
    expect(await payments.deliveryFailed(failure)).toBe(false);
    expect(await payments.getPayment(NETWORK, tx)).toMatchObject({
      delivery_state: 'delivered',
      delivery_attempts: 2,
      delivery_last_error: null,
      delivery_next_at: null,
      delivered_at: T0 + 3000,
      sealed: true,
    });
    expect(JSON.parse((await payments.sealedEnvelope(tx)) ?? 'null')).toEqual({ v: 1, tx_hash: tx });
    expect(await due(T0 + 10_000)).not.toContain(tx);
    expect((await made.audit()).filter((line) => line === `payment-deliver ${tx}`)).toHaveLength(1);
  });

  it('lists the most recently seen first, and keeps a cursor that never moves back', async () => {
    const { payments } = made;
    const [a, b] = [newTx(), newTx()];
    await payments.record(waiting(a, 'list@example.com', T0 + 100_000));
    await payments.record(waiting(b, 'list@example.com', T0 + 200_000));
    expect((await payments.list({ limit: 2 })).map((payment) => payment.tx_hash)).toEqual([b, a]);
    const key = { network: NETWORK, token: TOKEN, treasury: TREASURY };
    expect(await payments.cursor(key)).toBeUndefined();
    expect(await payments.advanceCursor({ ...key, next_block: 10, at: T0 })).toBe(10);
    expect(await payments.advanceCursor({ ...key, next_block: 5, at: T0 })).toBe(10);
    expect(await payments.cursor(key)).toBe(10);
    expect(await payments.cursor({ ...key, network: 'other' })).toBeUndefined();
  });

  it('writes under the payments lease only while its fence is current', async () => {
    const { payments, cluster } = made;
    const mine = await cluster.acquireLease(PAYMENTS_LEASE, 'node-a', 60_000, Date.now());
    if (mine === undefined) throw new Error('the lease was not granted');
    const key = { network: 'fenced', token: TOKEN, treasury: TREASURY };
    expect(await payments.advanceCursor({ ...key, next_block: 3, at: T0 }, mine)).toBe(3);
    await cluster.releaseLease(mine);
    const theirs = await cluster.acquireLease(PAYMENTS_LEASE, 'node-b', 60_000, Date.now());
    expect(theirs?.fence).toBeGreaterThan(mine.fence);
    const tx = newTx();
    await expect(payments.advanceCursor({ ...key, next_block: 9, at: T0 }, mine)).rejects.toThrow(LeaseLostError);
    await expect(payments.record(waiting(tx), mine)).rejects.toThrow(LeaseLostError);
    expect(await payments.cursor(key)).toBe(3);
    expect(await payments.getPayment(NETWORK, tx)).toBeUndefined();
    if (theirs !== undefined) await cluster.releaseLease(theirs);
  });
});

describe('payments on postgres, two nodes on one database', () => {
  it('one transaction seen by two stores on one database issues exactly one key', async () => {
    const made = await makePg();
    const nodeA = made.payments;
    const nodeB = await (made.another as () => Promise<PaymentStore>)();
    for (let round = 0; round < 5; round += 1) {
      const tx = newTx();
      const contact = `race${round}@example.com`;
      const recorded = await Promise.all([nodeA.record(waiting(tx, contact)), nodeB.record(waiting(tx, contact))]);
      expect(recorded.map((result) => result.created).sort()).toEqual([false, true]);
      const results = await Promise.all([
        nodeA.issueKey(issueOf(tx, { contact })),
        nodeB.issueKey(issueOf(tx, { contact })),
      ]);
      expect(results.map((result) => result.outcome).sort()).toEqual(['issued', 'not_waiting']);
      expect(await made.keysOf(tx)).toHaveLength(1);
      const audit = await made.audit();
      expect(audit.filter((line) => line === `payment-issue ${tx}`)).toHaveLength(1);
      expect(audit.filter((line) => line === `payment-record ${tx}`)).toHaveLength(1);
    }
    // Two payments of one new contact issued at once on two nodes: one tenant, both terms.
    const [first, second] = [newTx(), newTx()];
    await nodeA.record(waiting(first, 'twice@example.com'));
    await nodeA.record(waiting(second, 'twice@example.com'));
    const both = await Promise.all([
      nodeA.issueKey(issueOf(first, { contact: 'twice@example.com' })),
      nodeB.issueKey(issueOf(second, { contact: 'twice@example.com' })),
    ]);
    expect(both.map((result) => result.outcome)).toEqual(['issued', 'issued']);
    const end = T0 + 1000 + 2 * TERM_MS.month;
    expect([...(await made.keysOf(first)), ...(await made.keysOf(second))]).toEqual([
      { tenant_id: 'pay-pro-twice-example.com', expires_at: end },
      { tenant_id: 'pay-pro-twice-example.com', expires_at: end },
    ]);
  }, 120_000);
});
