import { describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto/encoding';
import { encodeMemo, transferCalldata } from '../../src-shared/payments/memo';
import type { PaymentTransaction, TokenTransfer } from '../anchor/stablecoin';
import { judgePayment } from './payments';

// The decisions about one transaction, from transactions written out by hand as plain data (the
// chain tests in payments.test.ts reach the same decisions from a real chain).

const TOKEN = `0x${'1'.repeat(40)}`;
const OTHER_TOKEN = `0x${'9'.repeat(40)}`;
const TREASURY = `0x${'2'.repeat(40)}`;
const PAYER = `0x${'3'.repeat(40)}`;
const CONFIG = { token: TOKEN, treasury: TREASURY };
const MEMO = encodeMemo({ tier: 'pro', contact: 'buyer@example.com' });

function transfer(amount: bigint, changes: Partial<TokenTransfer> = {}): TokenTransfer {
  return {
    tx_hash: `0x${'a'.repeat(64)}`,
    block_number: 10,
    block_hash: `0x${'b'.repeat(64)}`,
    log_index: 0,
    token: TOKEN,
    from: PAYER,
    to: TREASURY,
    amount,
    ...changes,
  };
}

function transaction(amount: bigint, changes: Partial<PaymentTransaction> = {}, memo = MEMO): PaymentTransaction {
  return {
    tx_hash: `0x${'a'.repeat(64)}`,
    status: 'success',
    block_number: 10,
    block_hash: `0x${'b'.repeat(64)}`,
    from: PAYER,
    to: TOKEN,
    input: transferCalldata(TREASURY, amount, memo),
    transfers: [transfer(amount)],
    ...changes,
  };
}

describe('judgePayment', () => {
  it('takes the monthly price or more as a month, ten times it as a year, and keeps an overpayment', () => {
    expect(judgePayment(transaction(99_000_000n), CONFIG)).toMatchObject({
      state: 'pending_confirmations',
      term: 'month',
      amount: 99_000_000n,
      memo: { tier: 'pro', contact: 'buyer@example.com' },
    });
    expect(judgePayment(transaction(989_999_999n), CONFIG)).toMatchObject({ term: 'month' });
    expect(judgePayment(transaction(990_000_000n), CONFIG)).toMatchObject({ term: 'year' });
    expect(judgePayment(transaction(5_000_000_000n), CONFIG)).toMatchObject({ term: 'year', amount: 5_000_000_000n });
    expect(judgePayment(transaction(98_999_999n), CONFIG)).toMatchObject({
      state: 'underpaid',
      reason: 'Paid 98.999999; the pro month is 99.000000: no key is issued.',
    });
  });

  it('refuses what is not our token’s own transfer call to the treasury with a memo', () => {
    expect(judgePayment(transaction(99_000_000n, { status: 'reverted', transfers: [] }), CONFIG).state).toBe(
      'reverted',
    );
    expect(judgePayment(transaction(99_000_000n, { transfers: [] }), CONFIG)).toMatchObject({
      state: 'wrong_token',
      reason: expect.stringContaining('moves none of the service'),
    });
    expect(
      judgePayment(
        transaction(99_000_000n, { to: OTHER_TOKEN, transfers: [transfer(99_000_000n, { token: OTHER_TOKEN })] }),
        CONFIG,
      ),
    ).toMatchObject({ state: 'wrong_token', token: OTHER_TOKEN, reason: expect.stringContaining(OTHER_TOKEN) });
    // Our token moved to the treasury, but by a contract calling the token (a wallet, a router).
    expect(judgePayment(transaction(99_000_000n, { to: `0x${'4'.repeat(40)}` }), CONFIG)).toMatchObject({
      state: 'memo_invalid',
      reason: expect.stringContaining('not the token'),
    });
    expect(judgePayment(transaction(99_000_000n, { to: null }), CONFIG).state).toBe('memo_invalid');
    // The call pays someone else while another Transfer in the transaction reaches the treasury.
    expect(
      judgePayment(transaction(99_000_000n, { input: transferCalldata(PAYER, 99_000_000n, MEMO) }), CONFIG),
    ).toMatchObject({ state: 'memo_invalid', reason: expect.stringContaining(`pays ${PAYER}`) });
    expect(
      judgePayment(transaction(99_000_000n, { input: Uint8Array.of(0x23, 0xb8, 0x72, 0xdd) }), CONFIG),
    ).toMatchObject({ state: 'memo_invalid', reason: expect.stringContaining('selector a9059cbb') });
    expect(judgePayment(transaction(99_000_000n, {}, utf8Encode('{"tier":"pro"}')), CONFIG)).toMatchObject({
      state: 'memo_invalid',
      reason: expect.stringContaining('no contact'),
    });
  });

  it('records an enterprise memo for sales, whatever the amount', () => {
    const memo = encodeMemo({ tier: 'enterprise', contact: 'bigco.example' });
    expect(judgePayment(transaction(1n, {}, memo), CONFIG)).toMatchObject({
      state: 'contact_sales',
      reason: expect.stringContaining('postmaster@bigco.example'),
    });
  });

  it('counts every Transfer of our token to the treasury in the transaction, and only those', () => {
    const split = transaction(99_000_000n, {
      transfers: [
        transfer(50_000_000n),
        transfer(49_000_000n, { log_index: 1 }),
        transfer(900_000_000n, { log_index: 2, token: OTHER_TOKEN }),
        transfer(900_000_000n, { log_index: 3, to: PAYER }),
      ],
    });
    expect(judgePayment(split, CONFIG)).toMatchObject({ state: 'pending_confirmations', amount: 99_000_000n });
  });
});
