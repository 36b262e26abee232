import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Ledger } from './open-ledger';
import {
  advancePaymentCursor,
  dueDeliveries,
  findPaymentsByTx,
  getPayment,
  getPaymentCursor,
  getSealedEnvelope,
  hasPaymentKey,
  listPaymentRecords,
  markDelivered,
  markPaymentIssued,
  movePendingPayment,
  recordDeliveryFailure,
  recordPayment,
  setTenantPaidUntil,
  settlePayment,
  tenantPaidUntil,
  unconfirmedPayments,
} from './payments';
import { findApiKey, insertApiKey, insertTenant, listApiKeys } from './service-state';
import { makeTemporaryLedger } from './test-support';

const TX_A = `0x${'a'.repeat(64)}`;
const TX_B = `0x${'b'.repeat(64)}`;
const BLOCK = `0x${'c'.repeat(64)}`;
const TOKEN = `0x${'1'.repeat(40)}`;
const TREASURY = `0x${'2'.repeat(40)}`;
const PAYER = `0x${'3'.repeat(40)}`;

describe('payments repository', () => {
  let ledger: Ledger;
  let dispose: () => void;

  beforeEach(() => {
    ({ ledger, dispose } = makeTemporaryLedger());
  });
  afterEach(() => dispose());

  function recordA(at = 10): ReturnType<typeof recordPayment> {
    return recordPayment(ledger.writable, {
      network: 'anvil-local',
      tx_hash: TX_A,
      block_number: 7,
      block_hash: BLOCK,
      from: PAYER,
      token: TOKEN,
      amount: 99_000_000n,
      tier: 'pro',
      term: 'month',
      contact: 'buyer@example.com',
      state: 'pending_confirmations',
      at,
    });
  }

  it('records a transaction once: seen again, nothing changes', () => {
    const first = recordA(10);
    expect(first.created).toBe(true);
    expect(first.record).toMatchObject({
      network: 'anvil-local',
      tx_hash: TX_A,
      block_number: 7,
      from: PAYER,
      amount: '99000000',
      state: 'pending_confirmations',
      delivery_state: 'none',
      delivery_attempts: 0,
      sealed: false,
      seen_at: 10,
      updated_at: 10,
    });
    const again = recordPayment(ledger.writable, {
      network: 'anvil-local',
      tx_hash: TX_A,
      state: 'memo_invalid',
      reason: 'another reading',
      at: 20,
    });
    expect(again).toEqual({ created: false, record: first.record });
    // Another network is another payment.
    expect(recordPayment(ledger.writable, { network: 'other', tx_hash: TX_A, state: 'reverted', at: 30 }).created).toBe(
      true,
    );
    expect(findPaymentsByTx(ledger.readable, TX_A).map((record) => record.network)).toEqual(['other', 'anvil-local']);
    expect(unconfirmedPayments(ledger.readable, 'anvil-local').map((record) => record.tx_hash)).toEqual([TX_A]);
    expect(listPaymentRecords(ledger.readable, { limit: 1 })).toHaveLength(1);
  });

  it('refuses bad input and never records a payment as issued directly', () => {
    const base = { network: 'n', tx_hash: TX_B, state: 'underpaid' as const, at: 1 };
    expect(() => recordPayment(ledger.writable, { ...base, tx_hash: TX_B.toUpperCase() })).toThrow(RangeError);
    expect(() => recordPayment(ledger.writable, { ...base, state: 'issued' })).toThrow(RangeError);
    expect(() => recordPayment(ledger.writable, { ...base, state: 'bogus' as 'issued' })).toThrow(RangeError);
    expect(() => recordPayment(ledger.writable, { ...base, from: '0xABC' })).toThrow(RangeError);
    expect(() => recordPayment(ledger.writable, { ...base, amount: -1n })).toThrow(RangeError);
    expect(() => recordPayment(ledger.writable, { ...base, network: '' })).toThrow(RangeError);
    expect(listPaymentRecords(ledger.readable)).toEqual([]);
    // The schema itself refuses an issued row without its tenant and key.
    expect(() =>
      ledger.writable
        .prepare(
          `INSERT INTO payments (network, tx_hash, state, seen_at, updated_at) VALUES ('n', '${TX_B}', 'issued', 1, 1)`,
        )
        .run(),
    ).toThrow(/CHECK/);
  });

  it('moves a payment on only from pending: a final state stays final', () => {
    recordA();
    expect(
      settlePayment(ledger.writable, {
        network: 'anvil-local',
        tx_hash: TX_A,
        state: 'dropped',
        reason: 'gone',
        at: 11,
      }),
    ).toBe(true);
    expect(
      settlePayment(ledger.writable, {
        network: 'anvil-local',
        tx_hash: TX_A,
        state: 'underpaid',
        reason: 'again',
        at: 12,
      }),
    ).toBe(false);
    insertTenant(ledger.writable, { id: 'pay-pro-buyer', tier: 'pro', at: 1 });
    expect(
      markPaymentIssued(ledger.writable, {
        network: 'anvil-local',
        tx_hash: TX_A,
        tenant_id: 'pay-pro-buyer',
        key_prefix: 'svc_pro_abcdefgh',
        term: 'month',
        expires_at: 100,
        delivery_channel: 'outbox',
        delivery_to: 'buyer@example.com',
        reason: 'paid',
        at: 13,
      }),
    ).toBe(false);
    expect(getPayment(ledger.readable, 'anvil-local', TX_A)).toMatchObject({ state: 'dropped', reason: 'gone' });
    expect(
      movePendingPayment(ledger.writable, {
        network: 'anvil-local',
        tx_hash: TX_A,
        block_number: 9,
        block_hash: TX_B,
        at: 14,
      }),
    ).toBe(false);
  });

  it('issues, then delivers with attempts and backoff, storing a sealed envelope once', () => {
    recordA();
    const move = { network: 'anvil-local', tx_hash: TX_A, block_number: 9, block_hash: TX_B, at: 15 };
    expect(movePendingPayment(ledger.writable, move)).toBe(true);
    expect(movePendingPayment(ledger.writable, move)).toBe(false);
    expect(getPayment(ledger.readable, 'anvil-local', TX_A)).toMatchObject({ block_number: 9, block_hash: TX_B });
    insertTenant(ledger.writable, { id: 'pay-pro-buyer', tier: 'pro', at: 1 });
    const issue = {
      network: 'anvil-local',
      tx_hash: TX_A,
      tenant_id: 'pay-pro-buyer',
      key_prefix: 'svc_pro_abcdefgh',
      term: 'month' as const,
      expires_at: 1000,
      delivery_channel: 'sealed' as const,
      delivery_to: 'did:key:z6Mk',
      reason: 'paid',
      at: 20,
    };
    expect(markPaymentIssued(ledger.writable, issue)).toBe(true);
    expect(markPaymentIssued(ledger.writable, issue)).toBe(false);
    expect(dueDeliveries(ledger.readable, 19)).toEqual([]);
    expect(dueDeliveries(ledger.readable, 20).map((record) => record.tx_hash)).toEqual([TX_A]);
    const where = { network: 'anvil-local', tx_hash: TX_A };
    expect(recordDeliveryFailure(ledger.writable, { ...where, error: 'no route', next_at: 50, at: 21 })).toBe(true);
    expect(dueDeliveries(ledger.readable, 49)).toEqual([]);
    expect(getPayment(ledger.readable, 'anvil-local', TX_A)).toMatchObject({
      delivery_attempts: 1,
      delivery_last_error: 'no route',
      delivery_state: 'pending',
    });
    expect(() => markDelivered(ledger.writable, { ...where, channel: 'sealed', at: 51 })).toThrow(RangeError);
    expect(markDelivered(ledger.writable, { ...where, channel: 'sealed', sealed: { format: 'x' }, at: 51 })).toBe(true);
    expect(markDelivered(ledger.writable, { ...where, channel: 'sealed', sealed: { format: 'y' }, at: 52 })).toBe(
      false,
    );
    expect(getSealedEnvelope(ledger.readable, TX_A)).toBe('{"format":"x"}');
    expect(getSealedEnvelope(ledger.readable, TX_B)).toBeUndefined();
    expect(getPayment(ledger.readable, 'anvil-local', TX_A)).toMatchObject({
      delivery_state: 'delivered',
      delivery_attempts: 2,
      delivery_last_error: null,
      delivered_at: 51,
      sealed: true,
    });
    expect(dueDeliveries(ledger.readable, 1_000_000)).toEqual([]);
  });

  it('keeps one bought key per transaction and extends the expiry of a tenant’s bought keys only', () => {
    insertTenant(ledger.writable, { id: 'pay-pro-buyer', tier: 'pro', at: 1 });
    const key = { tenant_id: 'pay-pro-buyer', tier: 'pro' as const, scopes: [], at: 2 };
    insertApiKey(ledger.writable, {
      ...key,
      key_sha256: 'a'.repeat(64),
      prefix: 'svc_pro_aaaaaaaa',
      payment_tx: TX_A,
      expires_at: 100,
    });
    expect(() =>
      insertApiKey(ledger.writable, {
        ...key,
        key_sha256: 'b'.repeat(64),
        prefix: 'svc_pro_bbbbbbbb',
        payment_tx: TX_A,
        expires_at: 100,
      }),
    ).toThrow(expect.objectContaining({ code: 'constraint' }));
    insertApiKey(ledger.writable, { ...key, key_sha256: 'c'.repeat(64), prefix: 'svc_pro_cccccccc' });
    expect(hasPaymentKey(ledger.readable, TX_A)).toBe(true);
    expect(hasPaymentKey(ledger.readable, TX_B)).toBe(false);
    expect(tenantPaidUntil(ledger.readable, 'pay-pro-buyer')).toBeNull();
    expect(setTenantPaidUntil(ledger.writable, 'pay-pro-buyer', 500)).toBe(1);
    expect(tenantPaidUntil(ledger.readable, 'pay-pro-buyer')).toBe(500);
    expect(findApiKey(ledger.readable, 'a'.repeat(64))?.expires_at).toBe(500);
    // The operator's key of the same tenant keeps no expiry.
    expect(findApiKey(ledger.readable, 'c'.repeat(64))).not.toHaveProperty('expires_at');
    expect(listApiKeys(ledger.readable).map((record) => record.expires_at)).toEqual([500, undefined]);
  });

  it('keeps a cursor per network, token and treasury that only moves forward', () => {
    const where = { network: 'anvil-local', token: TOKEN, treasury: TREASURY };
    expect(getPaymentCursor(ledger.readable, where)).toBeUndefined();
    expect(advancePaymentCursor(ledger.writable, { ...where, next_block: 5, at: 1 })).toBe(5);
    expect(advancePaymentCursor(ledger.writable, { ...where, next_block: 3, at: 2 })).toBe(5);
    expect(advancePaymentCursor(ledger.writable, { ...where, next_block: 9, at: 3 })).toBe(9);
    expect(getPaymentCursor(ledger.readable, { ...where, treasury: PAYER })).toBeUndefined();
    expect(() => getPaymentCursor(ledger.readable, { ...where, token: 'nope' })).toThrow(RangeError);
  });
});
