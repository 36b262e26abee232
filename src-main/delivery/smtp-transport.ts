/**
 * Key messages over SMTP (`evroom serve --smtp URL`), with nodemailer (docs/protocol.md,
 * "Delivery of bought keys").
 *
 * The URL is `smtp://[user:pass@]host[:port][?from=...&starttls=...]` (STARTTLS on the
 * submission port, 587 unless given) or `smtps://...` (TLS from the first byte, 465 unless
 * given). It is checked when the transport is made, so a bad flag stops `serve` at once, and
 * the password is never logged, described or put in an error. Over `smtp://` to any host but
 * the loopback, STARTTLS is required (the message holds a key and the login a password), unless
 * the operator says `starttls=opportunistic`; certificates are always verified.
 *
 * The same bytes as the outbox file are sent, Message-ID `<tx_hash@evidence-room.invalid>`
 * included, so a message sent again after a crash is recognisably the same one.
 */
import { isIP } from 'node:net';

import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';

import { DeliveryConfigError, DeliveryError } from './delivery-error';
import { DEFAULT_FROM, checkKeyMessage, keyMessageEml, parseMailbox } from './key-message';
import type { KeyMessage, MailTransport } from './key-message';

/** Options of {@link smtpTransport}. */
export interface SmtpTransportOptions {
  /** The sender (`addr@example.com` or `Name <addr@example.com>`); the URL's `from` otherwise, then {@link DEFAULT_FROM}. */
  from?: string;
  /** How long to wait for the connection, the greeting and each reply, in milliseconds (default 30 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 600_000;
/** Submission with STARTTLS (RFC 6409) and implicit TLS (RFC 8314). */
const DEFAULT_PORTS = { 'smtp:': 587, 'smtps:': 465 } as const;
/** The whole exchange may take this many timeouts (connect, greeting, the commands and DATA). */
const DEADLINE_TIMEOUTS = 3;
const QUERY_MEMBERS = new Set(['from', 'starttls']);
/** Words of Node's TLS errors about a certificate (expired, self-signed, wrong name, untrusted chain). */
const CERTIFICATE_PROBLEM = /certificate|self[- ]signed|altnames|unable to (get|verify)/i;
/** The most of a server's reply kept in an error message. */
const MAX_REPLY_TEXT = 120;

interface SmtpSettings {
  secure: boolean;
  host: string;
  port: number;
  user?: string;
  password?: string;
  from: string;
  requireTls: boolean;
  timeoutMs: number;
}

/**
 * A transport that sends each key message through one SMTP server.
 *
 * @param url - `smtp://` or `smtps://`, with optional `user:pass@` (percent-encoded), port, and
 *   query members `from` and `starttls` (`required` or `opportunistic`)
 * @param options - the sender and the timeout
 * @returns the transport (channel `smtp`)
 * @throws DeliveryConfigError when the URL or an option is unusable (the message never repeats the URL)
 * @example smtpTransport('smtps://keys%40example.com:secret@mail.example.com', { from: 'Keys <keys@example.com>' })
 */
export function smtpTransport(url: string, options: SmtpTransportOptions = {}): MailTransport {
  const settings = parseSmtpUrl(url, options);
  const transportOptions: SMTPTransport.Options = {
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: !settings.secure && settings.requireTls,
    auth: settings.user === undefined ? undefined : { user: settings.user, pass: settings.password ?? '' },
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    dnsTimeout: settings.timeoutMs,
    logger: false,
    debug: false,
    // SNI names a host, never an address (RFC 6066 3); the certificate is checked either way.
    tls:
      isIP(settings.host) === 0
        ? { rejectUnauthorized: true, servername: settings.host }
        : { rejectUnauthorized: true },
  };
  const transporter = nodemailer.createTransport(transportOptions);
  const sender = parseMailbox(settings.from);
  const where = `${settings.secure ? 'smtps' : 'smtp'}://${hostText(settings.host)}:${settings.port}`;
  const sent = new Set<string>();
  return {
    channel: 'smtp',
    describe: () => `${where}${settings.user === undefined ? '' : ` as ${settings.user}`}${tlsWords(settings)}`,
    async send(message: KeyMessage): Promise<void> {
      checkKeyMessage(message);
      if (sent.has(message.tx_hash)) return;
      const eml = keyMessageEml(message, settings.from, new Date());
      let info: SMTPTransport.SentMessageInfo;
      try {
        info = await withDeadline(
          transporter.sendMail({ envelope: { from: sender?.address ?? '', to: [message.to] }, raw: eml }),
          settings.timeoutMs * DEADLINE_TIMEOUTS,
        );
      } catch (error) {
        throw deliveryErrorOf(error, where, [message.key, settings.password]);
      }
      if (info.rejected.length > 0 || info.accepted.length === 0) {
        throw new DeliveryError(
          'refused',
          `SMTP delivery through ${where} failed: the server refused the recipient`,
          true,
        );
      }
      sent.add(message.tx_hash);
    },
  };
}

/** Checks the URL and options; every message names the problem, never the URL itself. */
function parseSmtpUrl(url: string, options: SmtpTransportOptions): SmtpSettings {
  if (typeof url !== 'string' || url === '')
    throw new DeliveryConfigError('--smtp needs a URL: smtp://host:port or smtps://host:port');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DeliveryConfigError('--smtp is not a URL (expected smtp://[user:pass@]host:port or smtps://...)');
  }
  const scheme = parsed.protocol;
  if (scheme !== 'smtp:' && scheme !== 'smtps:') {
    throw new DeliveryConfigError('--smtp must start with smtp:// or smtps://');
  }
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (host === '') throw new DeliveryConfigError('--smtp names no host');
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new DeliveryConfigError('--smtp: the host is not a host name or address');
  const port = parsed.port === '' ? DEFAULT_PORTS[scheme] : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new DeliveryConfigError('--smtp: the port must be 1 to 65535');
  }
  if (parsed.pathname !== '' && parsed.pathname !== '/')
    throw new DeliveryConfigError('--smtp: the URL must have no path');
  if (parsed.hash !== '') throw new DeliveryConfigError('--smtp: the URL must have no #fragment');
  for (const name of parsed.searchParams.keys()) {
    if (!QUERY_MEMBERS.has(name))
      throw new DeliveryConfigError(`--smtp: unknown query member "${name.slice(0, 40)}" (from, starttls)`);
  }
  const user = decoded(parsed.username, 'user name');
  const password = decoded(parsed.password, 'password');
  if (password !== '' && user === '') throw new DeliveryConfigError('--smtp: a password needs a user name');
  const starttls = parsed.searchParams.get('starttls');
  if (starttls !== null && starttls !== 'required' && starttls !== 'opportunistic') {
    throw new DeliveryConfigError('--smtp: starttls must be "required" or "opportunistic"');
  }
  if (starttls !== null && scheme === 'smtps:') {
    throw new DeliveryConfigError('--smtp: starttls is for smtp://; smtps:// is TLS from the start');
  }
  const from = options.from ?? parsed.searchParams.get('from') ?? DEFAULT_FROM;
  if (typeof from !== 'string' || parseMailbox(from) === undefined) {
    throw new DeliveryConfigError('the mail sender must be addr@domain or "Name <addr@domain>", in ASCII');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS) {
    throw new DeliveryConfigError(`the SMTP timeout must be ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS} ms`);
  }
  return {
    secure: scheme === 'smtps:',
    host,
    port,
    user: user === '' ? undefined : user,
    password: password === '' ? undefined : password,
    from,
    requireTls: starttls === null ? !isLoopback(host) : starttls === 'required',
    timeoutMs,
  };
}

function decoded(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new DeliveryConfigError(`--smtp: the ${what} is not valid percent-encoding`);
  }
}

/** How the connection is protected, for {@link MailTransport.describe}. */
function tlsWords(settings: SmtpSettings): string {
  if (settings.secure) return '';
  return settings.requireTls ? ' (STARTTLS required)' : ' (STARTTLS if offered)';
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function hostText(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Rejects with a timeout DeliveryError when the promise takes longer than `ms`. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(Object.assign(new Error('deadline'), { code: 'ETIMEDOUT' }));
    }, ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** nodemailer's error as a DeliveryError: a short reason, and no secret whatever the server said. */
function deliveryErrorOf(error: unknown, where: string, secrets: (string | undefined)[]): DeliveryError {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    responseCode?: unknown;
    response?: unknown;
  };
  const code = typeof failure.code === 'string' ? failure.code : '';
  const responseCode = typeof failure.responseCode === 'number' ? failure.responseCode : undefined;
  const reply = typeof failure.response === 'string' ? scrub(failure.response, secrets) : '';
  const said = reply === '' ? '' : `: ${reply}`;
  const errorText = error instanceof Error ? scrub(error.message, secrets) : '';
  // A certificate refused during the handshake comes as a socket error; say what it is.
  if (code === 'ESOCKET' && CERTIFICATE_PROBLEM.test(errorText)) {
    return new DeliveryError(
      'tls',
      `SMTP delivery through ${where} failed: the server's certificate was refused (${errorText})`,
      true,
    );
  }
  // Login and TLS failures come with the server's reply too, but are the operator's to fix, not the mail's.
  if (code === 'ETLS') {
    return new DeliveryError(
      'tls',
      `SMTP delivery through ${where} failed: TLS could not be set up (STARTTLS${said === '' ? '' : ` refused${said}`}, or the certificate)`,
      true,
    );
  }
  if (code === 'EAUTH' || code === 'ENOAUTH') {
    return new DeliveryError(
      'auth',
      `SMTP delivery through ${where} failed: the server refused the login${said === '' ? '' : ` (${responseCode ?? ''}${said})`}`,
      true,
    );
  }
  if (responseCode !== undefined && responseCode >= 400) {
    // RFC 5321 4.2.1: 4yz is transient, 5yz permanent.
    return new DeliveryError(
      'refused',
      `SMTP delivery through ${where} failed: the server refused (${responseCode}${said})`,
      responseCode < 500,
    );
  }
  switch (code) {
    case 'ECONNECTION':
    case 'EDNS':
    case 'ESOCKET':
      return new DeliveryError(
        'unreachable',
        `SMTP delivery through ${where} failed: the server cannot be reached`,
        true,
      );
    case 'ETIMEDOUT':
      return new DeliveryError(
        'timeout',
        `SMTP delivery through ${where} failed: the server did not answer in time`,
        true,
      );
    default:
      return new DeliveryError(
        'failed',
        `SMTP delivery through ${where} failed${code === '' ? '' : ` (${code})`}${said}`,
        true,
      );
  }
}

/** A run this long of a secret in a reply withholds the whole reply (a server could echo part of it). */
const SECRET_RUN = 8;

/** A server's reply for a message: one line, printable, cut short; withheld if it holds any run of a secret. */
function scrub(reply: string, secrets: (string | undefined)[]): string {
  const text = reply.replace(/[^\x20-\x7e]+/g, ' ').trim();
  for (const secret of secrets) {
    if (secret === undefined || secret === '') continue;
    const run = Math.min(SECRET_RUN, secret.length);
    for (let start = 0; start + run <= secret.length; start++) {
      if (text.includes(secret.slice(start, start + run))) return '[reply withheld: it held part of a secret]';
    }
  }
  return text.length > MAX_REPLY_TEXT ? `${text.slice(0, MAX_REPLY_TEXT - 3)}...` : text;
}
