import net from 'node:net';

import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';

import { DeliveryConfigError, DeliveryError } from './delivery-error';
import { keyMessageEml } from './key-message';
import type { KeyMessage } from './key-message';
import { smtpTransport } from './smtp-transport';

const TX = '0x' + 'd4'.repeat(32);
const KEY = 'svc_pro_QWERTYUIOPASDFGHJKLZXCVBNM123456';
const PASSWORD = 'correct horse battery staple';
const MESSAGE: KeyMessage = {
  tx_hash: TX,
  to: 'buyer@example.com',
  key: KEY,
  tier: 'pro',
  term: 'month',
  expires_at: Date.UTC(2026, 11, 26),
  tenant_id: 'pay-pro-buyer-example.com',
  service_url: 'http://127.0.0.1:8787',
};

interface Received {
  from: string;
  to: string[];
  data: string;
  user?: string;
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (stops.length > 0) await stops.pop()?.();
});

/** A real SMTP server on 127.0.0.1 and a free port, keeping what it receives. */
async function startSmtpServer(
  options: Partial<SMTPServerOptions> = {},
): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mailFrom = session.envelope.mailFrom;
        received.push({
          from: mailFrom === false ? '' : mailFrom.address,
          to: session.envelope.rcptTo.map((address) => address.address),
          data: Buffer.concat(chunks).toString('latin1'),
          user: typeof session.user === 'string' ? session.user : undefined,
        });
        callback();
      });
    },
    ...options,
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
  stops.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { port, received };
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

function dateOf(eml: string): Date {
  const match = /\r\nDate: ([^\r\n]+)\r\n/.exec(eml);
  if (!match) throw new Error('no Date header');
  return new Date(match[1] ?? '');
}

async function failureOf(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DeliveryError);
    return error as DeliveryError;
  }
  throw new Error('expected the send to fail');
}

describe('smtpTransport against a real SMTP server', () => {
  it('without AUTH: the envelope, and the message byte for byte', async () => {
    const { port, received } = await startSmtpServer();
    const transport = smtpTransport(`smtp://127.0.0.1:${port}`, { from: 'Keys <keys@example.com>', timeoutMs: 5000 });
    expect(transport.channel).toBe('smtp');
    expect(transport.describe()).toBe(`smtp://127.0.0.1:${port} (STARTTLS if offered)`);

    await transport.send(MESSAGE);

    expect(received).toHaveLength(1);
    const [mail] = received;
    expect(mail?.from).toBe('keys@example.com');
    expect(mail?.to).toEqual(['buyer@example.com']);
    expect(mail?.user).toBeUndefined();
    const data = mail?.data ?? '';
    expect(data).toBe(keyMessageEml(MESSAGE, 'Keys <keys@example.com>', dateOf(data)));
    expect(data).toContain(`\r\nMessage-ID: <${TX}@evidence-room.invalid>\r\n`);
    expect(data).toContain(`  Authorization: Bearer ${KEY}\r\n`);
  });

  it('with AUTH: logs in with the URL user and password (percent-decoded), and never describes the password', async () => {
    const logins: { username?: string; password?: string | null }[] = [];
    const { port, received } = await startSmtpServer({
      authOptional: false,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, _session, callback) {
        logins.push({ username: auth.username, password: auth.password ?? undefined });
        if (auth.username === 'keys@example.com' && auth.password === PASSWORD) callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
    });
    const url = `smtp://keys%40example.com:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}?from=keys%40example.com`;
    const transport = smtpTransport(url, { timeoutMs: 5000 });
    expect(transport.describe()).toBe(`smtp://127.0.0.1:${port} as keys@example.com (STARTTLS if offered)`);
    expect(transport.describe()).not.toContain(PASSWORD);

    await transport.send(MESSAGE);

    expect(logins).toEqual([{ username: 'keys@example.com', password: PASSWORD }]);
    expect(received).toHaveLength(1);
    expect(received[0]?.user).toBe('keys@example.com');
    expect(received[0]?.from).toBe('keys@example.com');
    expect(received[0]?.to).toEqual(['buyer@example.com']);
    expect(received[0]?.data).toContain(`API key:  ${KEY}\r\n`);
  });

  it('a wrong password: DeliveryError auth, without the password or the key', async () => {
    const { port, received } = await startSmtpServer({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(_auth, _session, callback) {
        callback(new Error('Invalid username or password'));
      },
    });
    const failure = await failureOf(
      smtpTransport(`smtp://keys:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`, { timeoutMs: 5000 }).send(MESSAGE),
    );
    expect(failure.reason).toBe('auth');
    expect(failure.message).toMatch(/refused the login/);
    expect(failure.message).not.toContain(PASSWORD);
    expect(failure.message).not.toContain(KEY);
    expect(received).toHaveLength(0);
  });

  it('the same transaction twice in one process is sent once', async () => {
    const { port, received } = await startSmtpServer();
    const transport = smtpTransport(`smtp://127.0.0.1:${port}`, { timeoutMs: 5000 });
    await transport.send(MESSAGE);
    await transport.send(MESSAGE);
    expect(received).toHaveLength(1);
    await transport.send({ ...MESSAGE, tx_hash: '0x' + 'd5'.repeat(32) });
    expect(received).toHaveLength(2);
  });

  it('a server that refuses the recipient (550): DeliveryError refused, not retryable, no key', async () => {
    const { port, received } = await startSmtpServer({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('5.1.1 No such mailbox here'), { responseCode: 550 }));
      },
    });
    const failure = await failureOf(smtpTransport(`smtp://127.0.0.1:${port}`, { timeoutMs: 5000 }).send(MESSAGE));
    expect(failure.reason).toBe('refused');
    expect(failure.retryable).toBe(false);
    expect(failure.message).toMatch(
      /^SMTP delivery through smtp:\/\/127\.0\.0\.1:\d+ failed: the server refused \(550: /,
    );
    expect(failure.message).toContain('No such mailbox here');
    expect(failure.message).not.toContain(KEY);
    expect(received).toHaveLength(0);
  });

  it('a server that refuses for now (451): retryable', async () => {
    const { port } = await startSmtpServer({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }));
      },
    });
    const failure = await failureOf(smtpTransport(`smtp://127.0.0.1:${port}`, { timeoutMs: 5000 }).send(MESSAGE));
    expect(failure).toMatchObject({ reason: 'refused', retryable: true });
  });

  it('a server whose refusal echoes the key: the reply is withheld from the error', async () => {
    const { port } = await startSmtpServer({
      onData(stream, _session, callback) {
        let text = '';
        stream.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        stream.on('end', () => {
          const echoed = /API key: {2}(\S+)/.exec(text)?.[1] ?? '';
          callback(Object.assign(new Error(`rejected: ${echoed.slice(4, 20)}`), { responseCode: 554 }));
        });
      },
    });
    const failure = await failureOf(smtpTransport(`smtp://127.0.0.1:${port}`, { timeoutMs: 5000 }).send(MESSAGE));
    expect(failure.reason).toBe('refused');
    expect(failure.message).toContain('reply withheld');
    expect(failure.message).not.toContain(KEY.slice(4, 20));
  });

  it('starttls=required against a server without STARTTLS: DeliveryError, nothing sent in the clear', async () => {
    const { port, received } = await startSmtpServer();
    const failure = await failureOf(
      smtpTransport(`smtp://127.0.0.1:${port}?starttls=required`, { timeoutMs: 5000 }).send(MESSAGE),
    );
    expect(failure).toMatchObject({ reason: 'tls', retryable: true });
    expect(failure.message).toMatch(/TLS could not be set up \(STARTTLS refused: 500 /);
    expect(failure.message).not.toContain(KEY);
    expect(received).toHaveLength(0);
  });
});

describe('smtpTransport verifies certificates', () => {
  // smtp-server's built-in certificate is self-signed for localhost (and expired): no client may trust it.
  it('smtps:// to a server whose certificate is not trusted: DeliveryError tls, nothing sent', async () => {
    const { port, received } = await startSmtpServer({ secure: true, disabledCommands: [] });
    const failure = await failureOf(smtpTransport(`smtps://127.0.0.1:${port}`, { timeoutMs: 5000 }).send(MESSAGE));
    expect(failure).toMatchObject({ reason: 'tls', retryable: true });
    expect(failure.message).toMatch(/the server's certificate was refused \(/);
    expect(failure.message).not.toContain(KEY);
    expect(received).toHaveLength(0);
  });

  it('STARTTLS offered with an untrusted certificate: refused even when STARTTLS is only opportunistic', async () => {
    const { port, received } = await startSmtpServer({ disabledCommands: [] });
    const failure = await failureOf(smtpTransport(`smtp://127.0.0.1:${port}`, { timeoutMs: 5000 }).send(MESSAGE));
    expect(failure).toMatchObject({ reason: 'tls', retryable: true });
    expect(received).toHaveLength(0);
  });
});

describe('smtpTransport when the server is not there', () => {
  it('a closed port: DeliveryError unreachable, at once', async () => {
    const port = await closedPort();
    const started = Date.now();
    const failure = await failureOf(smtpTransport(`smtp://127.0.0.1:${port}`, { timeoutMs: 2000 }).send(MESSAGE));
    expect(failure).toMatchObject({ reason: 'unreachable', retryable: true });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(failure.message).not.toContain(KEY);
  });

  it('a server that accepts and never greets: DeliveryError timeout within the timeout', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    stops.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const started = Date.now();
    const failure = await failureOf(smtpTransport(`smtp://127.0.0.1:${port}`, { timeoutMs: 400 }).send(MESSAGE));
    const elapsed = Date.now() - started;
    expect(failure).toMatchObject({ reason: 'timeout', retryable: true });
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(400 * 3 + 500);
  });
});

describe('smtpTransport refuses a bad configuration at once', () => {
  const bad: [string, string, RegExp][] = [
    ['no URL', '', /needs a URL/],
    ['not a URL', 'mail.example.com:587', /is not a URL|must start with smtp/],
    ['another scheme', `https://user:${PASSWORD}@mail.example.com`, /must start with smtp:\/\/ or smtps:\/\//],
    ['no host', 'smtp://:25', /not a URL|names no host/],
    ['port 0', 'smtp://mail.example.com:0', /port must be 1 to 65535/],
    ['port 70000', 'smtp://mail.example.com:70000', /not a URL|port must be/],
    ['a path', 'smtp://mail.example.com:587/inbox', /no path/],
    ['a fragment', 'smtp://mail.example.com:587#x', /no #fragment/],
    ['an unknown query member', 'smtp://mail.example.com:587?debug=1', /unknown query member "debug"/],
    ['a password without a user', `smtp://:${encodeURIComponent(PASSWORD)}@mail.example.com:587`, /needs a user name/],
    ['bad percent-encoding', 'smtp://user:%E0%A4%A@mail.example.com:587', /not valid percent-encoding/],
    ['starttls misspelt', 'smtp://mail.example.com:587?starttls=maybe', /starttls must be/],
    ['starttls on smtps', 'smtps://mail.example.com?starttls=required', /starttls is for smtp/],
    [
      'a sender with a line break',
      'smtp://mail.example.com:587?from=a%40example.com%0D%0ABcc%3A%20x%40y.z',
      /mail sender/,
    ],
  ];
  it.each(bad)('%s', (_name, url, reason) => {
    let caught: unknown;
    try {
      smtpTransport(url);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DeliveryConfigError);
    expect((caught as Error).message).toMatch(reason);
    expect((caught as Error).message).not.toContain(PASSWORD);
    expect((caught as Error).message).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('options out of range', () => {
    expect(() => smtpTransport('smtp://127.0.0.1:25', { timeoutMs: 5 })).toThrow(DeliveryConfigError);
    expect(() => smtpTransport('smtp://127.0.0.1:25', { from: 'nobody' })).toThrow(DeliveryConfigError);
  });

  it('default ports, IPv6 hosts and smtps describe themselves without the password; STARTTLS is required off loopback', () => {
    expect(smtpTransport('smtp://mail.example.com').describe()).toBe('smtp://mail.example.com:587 (STARTTLS required)');
    expect(smtpTransport('smtp://mail.example.com:25?starttls=opportunistic').describe()).toBe(
      'smtp://mail.example.com:25 (STARTTLS if offered)',
    );
    expect(smtpTransport('smtp://localhost:25').describe()).toBe('smtp://localhost:25 (STARTTLS if offered)');
    expect(smtpTransport('smtp://127.0.0.1:25?starttls=required').describe()).toBe(
      'smtp://127.0.0.1:25 (STARTTLS required)',
    );
    expect(smtpTransport(`smtps://me:${encodeURIComponent(PASSWORD)}@mail.example.com`).describe()).toBe(
      'smtps://mail.example.com:465 as me',
    );
    expect(smtpTransport('smtp://[::1]:2525').describe()).toBe('smtp://[::1]:2525 (STARTTLS if offered)');
    expect(smtpTransport('smtp://[2001:db8::1]:2525').describe()).toBe('smtp://[2001:db8::1]:2525 (STARTTLS required)');
  });
});
