import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MONTHLY_PRICE_UNITS } from '../src-shared/api/payments';
import { encodeMemo, parseMemo, splitTransferCalldata, transferCalldata } from '../src-shared/payments/memo';

// docs/payments.md shows the exact bytes of an example payment. Build them with the program's
// own encoder and check the page prints the same hex dump and the same hex string.
const doc = readFileSync(new URL('../docs/payments.md', import.meta.url), 'utf8');
const TREASURY = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = bytes.subarray(offset, offset + 16);
    const hex = [...row].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    const text = [...row].map((byte) => (byte >= 32 && byte < 127 ? String.fromCharCode(byte) : '.')).join('');
    lines.push(`${offset.toString(16).padStart(4, '0')}  ${hex.padEnd(47)}   ${text}`);
  }
  return lines.join('\n');
}

describe('docs/payments.md example payment', () => {
  const memo = encodeMemo({ tier: 'pro', contact: 'alice@example.com' });
  const data = transferCalldata(TREASURY, MONTHLY_PRICE_UNITS.pro, memo);

  it('quotes the memo and the call data byte for byte', () => {
    expect(new TextDecoder().decode(memo)).toBe('{"contact":"alice@example.com","tier":"pro"}');
    expect(doc).toContain(`\`${new TextDecoder().decode(memo)}\` (${memo.length} bytes)`);
    expect(doc).toContain(hexDump(data));
    expect(doc).toContain(`0x${Buffer.from(data).toString('hex')}`);
    expect(doc).toContain(`bytes 68-${data.length - 1}: the memo`);
  });

  it('is a payment the service reads back as written', () => {
    const split = splitTransferCalldata(data);
    expect(split?.recipient).toBe(TREASURY);
    expect(split?.amount).toBe(99_000_000n);
    expect(parseMemo(split!.memo)).toEqual({ ok: true, memo: { tier: 'pro', contact: 'alice@example.com' } });
  });
});
