import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DeliveryError } from './delivery-error';
import { keyMessageEml } from './key-message';
import type { KeyMessage } from './key-message';
import { outboxTransport } from './outbox-transport';

const TX = '0x' + '7e'.repeat(32);
const KEY = 'svc_scale_ZYXWVUTSRQPONMLKJIHGFEDCBA987654';
const MESSAGE: KeyMessage = {
  tx_hash: TX,
  to: 'postmaster@example.org',
  key: KEY,
  tier: 'scale',
  term: 'year',
  expires_at: Date.UTC(2027, 10, 26),
  tenant_id: 'pay-scale-example.org',
};

let dataFolder: string;
beforeEach(() => {
  dataFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-outbox-'));
});
afterEach(() => {
  fs.rmSync(dataFolder, { recursive: true, force: true });
});

function dateOf(eml: string): Date {
  const match = /\r\nDate: ([^\r\n]+)\r\n/.exec(eml);
  if (!match) throw new Error('no Date header');
  return new Date(match[1] ?? '');
}

describe('outboxTransport', () => {
  it('makes the folder 0700 and writes <tx_hash>.eml 0600: the message, byte for byte', async () => {
    const outbox = path.join(dataFolder, 'outbox');
    const transport = outboxTransport(outbox);
    expect(transport.channel).toBe('outbox');
    expect(transport.describe()).toBe(`outbox ${outbox}`);
    expect(fs.existsSync(outbox)).toBe(false);

    await transport.send(MESSAGE);

    expect(fs.statSync(outbox).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(outbox)).toEqual([`${TX}.eml`]);
    const file = path.join(outbox, `${TX}.eml`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const eml = fs.readFileSync(file, 'ascii');
    // The file is exactly the documented message from the default sender, at the instant it was written.
    expect(eml).toBe(keyMessageEml(MESSAGE, 'Evidence Room <no-reply@evidence-room.invalid>', dateOf(eml)));
    expect(Math.abs(dateOf(eml).getTime() - Date.now())).toBeLessThan(60_000);
    expect(eml).toContain(`\r\nMessage-ID: <${TX}@evidence-room.invalid>\r\n`);
    expect(eml).toContain(`\r\nTo: postmaster@example.org\r\n`);
    expect(eml).toContain(`API key:  ${KEY}\r\n`);
  });

  it('the same transaction again is a no-op: the file is not rewritten', async () => {
    const outbox = path.join(dataFolder, 'outbox');
    const transport = outboxTransport(outbox);
    await transport.send(MESSAGE);
    const file = path.join(outbox, `${TX}.eml`);
    const first = fs.statSync(file);
    const bytes = fs.readFileSync(file);

    await transport.send({ ...MESSAGE, to: 'someone-else@example.org' });
    await outboxTransport(outbox).send(MESSAGE); // a restart: a new transport on the same folder

    const again = fs.statSync(file);
    expect(again.ino).toBe(first.ino);
    expect(again.mtimeMs).toBe(first.mtimeMs);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(fs.readdirSync(outbox)).toEqual([`${TX}.eml`]);
  });

  it('two transactions are two files, and no temporary file is left behind', async () => {
    const outbox = path.join(dataFolder, 'outbox');
    const transport = outboxTransport(outbox);
    const other = '0x' + '01'.repeat(32);
    await Promise.all([transport.send(MESSAGE), transport.send({ ...MESSAGE, tx_hash: other })]);
    expect(fs.readdirSync(outbox).sort()).toEqual([`${other}.eml`, `${TX}.eml`].sort());
  });

  it("removes this transaction's temporary files left by a crash, not recent ones nor other transactions'", async () => {
    const outbox = path.join(dataFolder, 'outbox');
    fs.mkdirSync(outbox, { mode: 0o700 });
    const stale = path.join(outbox, `.${TX}.0a0b0c0d0e0f.tmp`);
    const recent = path.join(outbox, `.${TX}.111111111111.tmp`);
    const otherTx = path.join(outbox, `.0x${'02'.repeat(32)}.222222222222.tmp`);
    for (const file of [stale, recent, otherTx]) fs.writeFileSync(file, `half a message with ${KEY}`, { mode: 0o600 });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(stale, anHourAgo, anHourAgo);
    fs.utimesSync(otherTx, anHourAgo, anHourAgo);

    await outboxTransport(outbox).send(MESSAGE);

    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.existsSync(otherTx)).toBe(true);
    expect(fs.existsSync(path.join(outbox, `${TX}.eml`))).toBe(true);
  });

  it('tightens an existing folder to 0700', async () => {
    const outbox = path.join(dataFolder, 'outbox');
    fs.mkdirSync(outbox, { mode: 0o755 });
    fs.chmodSync(outbox, 0o755);
    await outboxTransport(outbox).send(MESSAGE);
    expect(fs.statSync(outbox).mode & 0o777).toBe(0o700);
  });

  it('a message that cannot be written: DeliveryError, not retryable, nothing written, no key in the message', async () => {
    const outbox = path.join(dataFolder, 'outbox');
    const attempt = outboxTransport(outbox).send({ ...MESSAGE, to: 'buyer@example.com\r\nBcc: thief@example.net' });
    await expect(attempt).rejects.toBeInstanceOf(DeliveryError);
    await expect(attempt).rejects.toMatchObject({ reason: 'invalid_message', retryable: false });
    await expect(attempt).rejects.not.toThrow(KEY);
    expect(fs.existsSync(path.join(outbox, `${TX}.eml`))).toBe(false);
  });

  it('a folder that cannot be made: a retryable DeliveryError with the errno code, no key', async () => {
    const blocker = path.join(dataFolder, 'a-file');
    fs.writeFileSync(blocker, 'x');
    const attempt = outboxTransport(path.join(blocker, 'outbox')).send(MESSAGE);
    await expect(attempt).rejects.toMatchObject({ name: 'DeliveryError', reason: 'io', retryable: true });
    await expect(attempt).rejects.toThrow(/cannot make the outbox .*\(ENOTDIR\)/);
    await expect(attempt).rejects.not.toThrow(KEY);
  });

  it('something other than a file at the message path: DeliveryError, not overwritten', async () => {
    const outbox = path.join(dataFolder, 'outbox');
    fs.mkdirSync(path.join(outbox, `${TX}.eml`), { recursive: true });
    await expect(outboxTransport(outbox).send(MESSAGE)).rejects.toMatchObject({ reason: 'io', retryable: false });
    expect(fs.statSync(path.join(outbox, `${TX}.eml`)).isDirectory()).toBe(true);
  });

  it('refuses an empty folder path', () => {
    expect(() => outboxTransport('')).toThrow(TypeError);
  });
});
