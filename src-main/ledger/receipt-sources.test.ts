import { afterEach, describe, expect, it } from 'vitest';
import type { Ledger } from './open-ledger';
import { addReceiptSource, checkSource, listReceiptSources, resolveReceiptId } from './receipt-sources';
import { insertReceipts } from './receipts';
import { makeReceipt, makeTemporaryLedger, sha256Hex } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): Ledger {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made.ledger;
}

describe('receipt sources', () => {
  it('records each distinct source once, oldest first', () => {
    const ledger = temporary();
    const receipt = makeReceipt('r');
    insertReceipts(ledger.writable, [{ ...receipt, source: { kind: 'service', ref: 'https://svc.example' } }], {
      at: 3,
    });
    addReceiptSource(ledger.writable, 1, { kind: 'file', ref: '/a.json' }, { at: 1 });
    addReceiptSource(ledger.writable, 1, { kind: 'file', ref: '/a.json' }, { at: 9 });
    addReceiptSource(ledger.writable, receipt.receipt_sha256, { kind: 'file', ref: '/b.json' }, { at: 2 });
    expect(listReceiptSources(ledger.readable, 1).map((source) => [source.ref, source.imported_at])).toEqual([
      ['/a.json', 1],
      ['/b.json', 2],
      ['https://svc.example', 3],
    ]);
  });

  it('resolves a receipt by id or hash and checks the reference', () => {
    const ledger = temporary();
    const receipt = makeReceipt('r');
    insertReceipts(ledger.writable, [receipt]);
    expect(resolveReceiptId(ledger.readable, 1)).toBe(1);
    expect(resolveReceiptId(ledger.readable, receipt.receipt_sha256)).toBe(1);
    expect(resolveReceiptId(ledger.readable, 2)).toBeUndefined();
    expect(resolveReceiptId(ledger.readable, sha256Hex('other'))).toBeUndefined();
    expect(() => resolveReceiptId(ledger.readable, 0)).toThrow(RangeError);
    expect(() => resolveReceiptId(ledger.readable, 'ABC')).toThrow(RangeError);
    expect(() => resolveReceiptId(ledger.readable, {} as unknown as string)).toThrow(TypeError);
  });

  it('checks sources', () => {
    expect(checkSource({ kind: 'bundle', ref: '' })).toEqual({ kind: 'bundle', ref: '' });
    expect(() => checkSource({ kind: 'ftp', ref: '' })).toThrow(RangeError);
    expect(() => checkSource({ kind: 'file', ref: 5 })).toThrow(TypeError);
    expect(() => checkSource({ kind: 'file', ref: 'x'.repeat(5000) })).toThrow(RangeError);
    expect(() => checkSource(null)).toThrow(TypeError);
  });
});
