import { describe, expect, it } from 'vitest';

import { DeliveryError } from './delivery-error';
import { DEFAULT_FROM, isMailAddress, keyMessageEml, parseMailbox, rfc5322Date } from './key-message';
import type { KeyMessage } from './key-message';

const TX = '0x' + 'c3'.repeat(32);
const KEY = 'svc_pro_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const MESSAGE: KeyMessage = {
  tx_hash: TX,
  to: 'buyer@example.com',
  key: KEY,
  tier: 'pro',
  term: 'month',
  expires_at: Date.UTC(2026, 11, 26, 1, 23, 9),
  tenant_id: 'pay-pro-buyer-example.com',
  service_url: 'https://keys.example.com/',
};
const DATE = new Date(Date.UTC(2026, 10, 26, 1, 23, 9));

/**
 * An RFC 5322 message split by hand (no mail library in the tests): the header fields up to the
 * first empty line, unfolded, as [name, value] pairs in order, and the body.
 */
function parseEml(eml: string): { headers: [string, string][]; body: string } {
  expect(eml.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/); // CRLF only, no bare CR or LF
  const end = eml.indexOf('\r\n\r\n');
  expect(end).toBeGreaterThan(0);
  const unfolded = eml.slice(0, end).replace(/\r\n[ \t]/g, ' ');
  const headers = unfolded.split('\r\n').map((line): [string, string] => {
    const match = /^([!-9;-~]+):[ \t]*(.*)$/.exec(line);
    if (!match) throw new Error(`not a header field: ${JSON.stringify(line)}`);
    return [match[1] ?? '', match[2] ?? ''];
  });
  return { headers, body: eml.slice(end + 4) };
}

function headerValue(headers: [string, string][], name: string): string[] {
  return headers.filter(([field]) => field.toLowerCase() === name.toLowerCase()).map(([, value]) => value);
}

describe('keyMessageEml', () => {
  const eml = keyMessageEml(MESSAGE, 'Evidence Room <keys@example.com>', DATE);
  const { headers, body } = parseEml(eml);

  it('has exactly the documented header fields, once each, in order', () => {
    expect(headers).toEqual([
      ['From', '"Evidence Room" <keys@example.com>'],
      ['To', 'buyer@example.com'],
      ['Subject', 'Your Evidence Room API key (pro, month)'],
      ['Date', 'Thu, 26 Nov 2026 01:23:09 +0000'],
      ['Message-ID', `<${TX}@evidence-room.invalid>`],
      ['Auto-Submitted', 'auto-generated'],
      ['MIME-Version', '1.0'],
      ['Content-Type', 'text/plain; charset=utf-8'],
      ['Content-Transfer-Encoding', '7bit'],
    ]);
    expect(new Date(headerValue(headers, 'Date')[0] ?? '').getTime()).toBe(DATE.getTime());
  });

  it('says the key, tier, term, expiry, tenant and how to use it, and that it is shown only here', () => {
    expect(body).toBe(
      [
        'Your Evidence Room API key',
        '',
        'You paid for an API key with the transaction',
        TX,
        '',
        'It is shown here and nowhere else: the service keeps only a hash of it',
        'and cannot show it again. Keep it secret, as you would a password.',
        '',
        `API key:  ${KEY}`,
        'Tier:     pro',
        'Term:     month (30 days)',
        'Expires:  2026-12-26T01:23:09.000Z',
        'Tenant:   pay-pro-buyer-example.com',
        'Service:  https://keys.example.com',
        '',
        'How to use it: send it with every request in the Authorization header,',
        '',
        `  Authorization: Bearer ${KEY}`,
        '',
        'for example:',
        '',
        '  curl -X POST "https://keys.example.com/v1/receipt/emit?profile=standard" \\',
        `    -H "Authorization: Bearer ${KEY}" \\`,
        '    -H "content-type: application/json" --data \'{...}\'',
        '',
        'After the expiry the key answers 401 key_expired. To renew, pay again',
        'with the same contact and tier: the new term is added to this one.',
        '',
      ].join('\r\n'),
    );
  });

  it('is 7-bit ASCII, and every line but the Message-ID (one unbreakable token) is at most 78 characters', () => {
    expect(eml).toMatch(/^[\x20-\x7e\r\n]*$/);
    const long = eml.split('\r\n').filter((line) => line.length > 78);
    expect(long).toEqual([`Message-ID: <${TX}@evidence-room.invalid>`]);
  });

  it('without a service URL: no Service line and no curl example; a year term says 365 days', () => {
    const { service_url: _omitted, ...rest } = MESSAGE;
    const plain = parseEml(keyMessageEml({ ...rest, term: 'year', tier: 'scale' }, DEFAULT_FROM, DATE));
    expect(headerValue(plain.headers, 'From')).toEqual(['"Evidence Room" <no-reply@evidence-room.invalid>']);
    expect(headerValue(plain.headers, 'Subject')).toEqual(['Your Evidence Room API key (scale, year)']);
    expect(plain.body).toContain('Term:     year (365 days)\r\n');
    expect(plain.body).not.toContain('Service:');
    expect(plain.body).not.toContain('curl');
    expect(plain.body).toContain(`  Authorization: Bearer ${KEY}\r\n`);
  });

  it('a bare sender address is written as it is', () => {
    expect(headerValue(parseEml(keyMessageEml(MESSAGE, 'keys@example.com', DATE)).headers, 'From')).toEqual([
      'keys@example.com',
    ]);
  });
});

describe('keyMessageEml refuses what could inject a header or is not a message, never echoing the key', () => {
  const refusals: [string, Partial<KeyMessage>][] = [
    ['CRLF and a Bcc in the recipient', { to: 'buyer@example.com\r\nBcc: thief@example.net' }],
    ['a bare LF in the recipient', { to: 'buyer@example.com\nBcc: thief@example.net' }],
    ['two recipients', { to: 'buyer@example.com, thief@example.net' }],
    ['a display name in the recipient', { to: 'Buyer <buyer@example.com>' }],
    ['a non-ASCII recipient', { to: 'käufer@example.com' }],
    ['a recipient without a domain dot', { to: 'buyer@localhost' }],
    ['a CRLF in the tenant id', { tenant_id: 'pay-pro-x\r\nBcc: thief@example.net' }],
    ['a CRLF in the tx hash', { tx_hash: `${TX}\r\nBcc: thief@example.net` }],
    ['an uppercase tx hash', { tx_hash: TX.toUpperCase().replace('0X', '0x') }],
    ['a CRLF in the key', { key: `${KEY}\r\nBcc: thief@example.net` }],
    ['a key with a space', { key: 'svc_pro_a b' }],
    ['another tier', { tier: 'enterprise' as 'pro' }],
    ['another term', { term: 'week' as 'month' }],
    ['a fractional expiry', { expires_at: 1.5 }],
    ['a CRLF in the service URL', { service_url: 'https://x.example/\r\nBcc: thief@example.net' }],
    ['a service URL that is not http(s)', { service_url: 'javascript:alert(1)' }],
  ];
  it.each(refusals)('%s', (_name, change) => {
    let caught: unknown;
    try {
      keyMessageEml({ ...MESSAGE, ...change }, DEFAULT_FROM, DATE);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DeliveryError);
    const failure = caught as DeliveryError;
    expect(failure.reason).toBe('invalid_message');
    expect(failure.retryable).toBe(false);
    expect(failure.message).toMatch(/^the key message cannot be written: /);
    expect(failure.message).not.toContain(KEY);
  });

  it.each([
    'Evidence Room <keys@example.com>\r\nBcc: thief@example.net',
    'keys@example.com\r\nBcc: thief@example.net',
    '"Quoted" <keys@example.com>',
    'Evidence Room <keys@example.com',
    'not an address',
  ])('a sender %j', (from) => {
    expect(() => keyMessageEml(MESSAGE, from, DATE)).toThrow(/the sender must be addr@domain/);
  });
});

describe('the helpers', () => {
  it('rfc5322Date writes day, date, month, year, time and +0000', () => {
    expect(rfc5322Date(new Date(Date.UTC(2027, 0, 3, 4, 5, 6)))).toBe('Sun, 03 Jan 2027 04:05:06 +0000');
    expect(() => rfc5322Date(new Date(Number.NaN))).toThrow(RangeError);
  });
  it('isMailAddress and parseMailbox', () => {
    expect(isMailAddress('postmaster@example.com')).toBe(true);
    expect(isMailAddress("o'brien+keys@mail.example.co.uk")).toBe(true);
    expect(isMailAddress('a@b')).toBe(false);
    expect(isMailAddress('.a@example.com')).toBe(false);
    expect(isMailAddress(`${'a'.repeat(250)}@example.com`)).toBe(false);
    expect(parseMailbox('Keys <keys@example.com>')).toEqual({ name: 'Keys', address: 'keys@example.com' });
    expect(parseMailbox('<keys@example.com>')).toEqual({ address: 'keys@example.com' });
  });
});
