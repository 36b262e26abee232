/**
 * The message that carries a bought API key to its buyer, and the transports' contract
 * (docs/protocol.md, "Delivery of bought keys").
 *
 * The message is one RFC 5322 text: plain 7-bit ASCII (every field is checked to be ASCII, so no
 * transfer encoding is needed), CRLF line ends, lines of at most 78 characters except a long
 * service URL, and a Message-ID made from the transaction hash, so that a message sent again
 * after a crash is recognisably the same one. The outbox writes it to a file; SMTP sends the same
 * bytes.
 *
 * Header injection is impossible by construction: every header value is checked to be printable
 * ASCII with no CR or LF before it is written, and addresses must be plain addr-specs.
 */
import { PAYMENT_TERMS, TERM_MS } from '../../src-shared/api/payments';
import type { PaymentTerm } from '../../src-shared/api/payments';
import { isTenantId } from '../../src-shared/api/vocabulary';
import { DeliveryError } from './delivery-error';

/** What a mail delivery needs: the key and what the buyer should know about it. */
export interface KeyMessage {
  /** The payment transaction, `0x` + 64 lowercase hex; names the message (Message-ID, file). */
  tx_hash: string;
  /** The recipient's mail address (an addr-spec: `buyer@example.com`, `postmaster@example.com`). */
  to: string;
  /** The API key: shown in this message only. */
  key: string;
  tier: 'pro' | 'scale';
  term: 'month' | 'year';
  /** When the tenant's paid term ends, in milliseconds since the epoch. */
  expires_at: number;
  tenant_id: string;
  /** The service's base URL, when known, for the usage example. */
  service_url?: string;
}

/**
 * A way to deliver a {@link KeyMessage}.
 *
 * `send` is idempotent per transaction hash: the outbox writes one file per hash and leaves an
 * existing one alone; SMTP skips a hash it already sent in this process, and a resend after a
 * restart carries the same Message-ID. A failure is a {@link DeliveryError} whose message never
 * holds the key.
 */
export interface MailTransport {
  readonly channel: 'outbox' | 'smtp';
  /** Where messages go, for logs and the operator (never a password). */
  describe(): string;
  send(message: KeyMessage): Promise<void>;
}

/** The sender when the operator names none: a reserved domain (RFC 2606), never a real mailbox. */
export const DEFAULT_FROM = 'Evidence Room <no-reply@evidence-room.invalid>';
/** The Message-ID's right-hand side: RFC 2606's `.invalid`, so it can collide with no real host. */
export const MESSAGE_ID_DOMAIN = 'evidence-room.invalid';

const TX_HASH_PATTERN = /^0x[0-9a-f]{64}$/;
/** RFC 5322 dot-atom local part and an LDH domain of at least two labels; ASCII only. */
const ADDRESS_PATTERN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/** RFC 5321 4.5.3.1.3: a path is at most 256 octets, so an address at most 254. */
const MAX_ADDRESS_LENGTH = 254;
/** A display name we write as a quoted string: printable ASCII without `"` and `\`. */
const DISPLAY_NAME_PATTERN = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/;
const NAMED_ADDRESS_PATTERN = /^(.*?)\s*<([^<>]*)>$/;
const API_KEY_PATTERN = /^[\x21-\x7e]{1,128}$/;
/** A service URL for the example line: http(s), printable ASCII, no spaces. */
const SERVICE_URL_PATTERN = /^https?:\/\/[\x21-\x7e]{1,2000}$/;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const CRLF = '\r\n';

/** A mailbox split into its optional display name and its addr-spec. */
export interface Mailbox {
  name?: string;
  address: string;
}

/**
 * Whether text is a plain ASCII addr-spec we can put in a header and an SMTP envelope.
 *
 * @param text - anything
 * @returns true for `local@domain.tld` (dot-atom local part, LDH domain labels, <= 254 characters)
 */
export function isMailAddress(text: unknown): text is string {
  return typeof text === 'string' && text.length <= MAX_ADDRESS_LENGTH && ADDRESS_PATTERN.test(text);
}

/**
 * Parses a sender: `addr@example.com` or `Display Name <addr@example.com>`.
 *
 * @param from - the operator's sender
 * @returns the mailbox, or undefined when it is neither form
 */
export function parseMailbox(from: string): Mailbox | undefined {
  if (isMailAddress(from)) return { address: from };
  const named = NAMED_ADDRESS_PATTERN.exec(from);
  if (!named) return undefined;
  const [, name = '', address = ''] = named;
  if (!isMailAddress(address)) return undefined;
  if (name === '') return { address };
  if (!DISPLAY_NAME_PATTERN.test(name)) return undefined;
  return { name, address };
}

/**
 * A date as RFC 5322 section 3.3 writes it, in UTC: `Thu, 26 Nov 2026 01:23:09 +0000`.
 *
 * @param date - a valid Date
 * @returns the date-time text
 * @throws RangeError when the date is invalid
 */
export function rfc5322Date(date: Date): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new RangeError('rfc5322Date: not a valid Date');
  const two = (value: number): string => String(value).padStart(2, '0');
  return (
    `${DAYS[date.getUTCDay()] ?? ''}, ${two(date.getUTCDate())} ${MONTHS[date.getUTCMonth()] ?? ''} ` +
    `${date.getUTCFullYear()} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
}

/**
 * The Message-ID of a transaction's key message: `<tx_hash@evidence-room.invalid>`.
 *
 * @param txHash - `0x` + 64 lowercase hex
 * @returns the msg-id with its angle brackets
 */
export function keyMessageId(txHash: string): string {
  return `<${txHash}@${MESSAGE_ID_DOMAIN}>`;
}

/**
 * Checks a {@link KeyMessage} from the delivery worker before anything is written or sent.
 *
 * @param message - the message
 * @throws DeliveryError (`invalid_message`, not retryable) naming the field; never the key
 */
export function checkKeyMessage(message: KeyMessage): void {
  const fail = (what: string): never => {
    throw new DeliveryError('invalid_message', `the key message cannot be written: ${what}`, false);
  };
  if (typeof message !== 'object' || message === null) fail('it is not an object');
  if (typeof message.tx_hash !== 'string' || !TX_HASH_PATTERN.test(message.tx_hash)) {
    fail('tx_hash must be "0x" and 64 lowercase hex digits');
  }
  if (!isMailAddress(message.to)) {
    fail('the recipient is not a plain ASCII mail address (local@domain, no spaces or line breaks)');
  }
  if (typeof message.key !== 'string' || !API_KEY_PATTERN.test(message.key)) {
    fail('the key must be 1 to 128 printable ASCII characters');
  }
  if (message.tier !== 'pro' && message.tier !== 'scale') fail('tier must be pro or scale');
  if (!PAYMENT_TERMS.includes(message.term)) fail('term must be month or year');
  if (!Number.isSafeInteger(message.expires_at) || message.expires_at < 0) {
    fail('expires_at must be milliseconds since the epoch');
  }
  if (!isTenantId(message.tenant_id)) fail('tenant_id is not a tenant id');
  if (message.service_url !== undefined) {
    if (typeof message.service_url !== 'string' || !SERVICE_URL_PATTERN.test(message.service_url)) {
      fail('service_url must be an http(s) URL of printable ASCII');
    }
  }
}

/** A header line, refusing anything that could end the header or start another. */
function header(name: string, value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new DeliveryError(
      'invalid_message',
      `the key message cannot be written: the ${name} header would hold a line break or a non-ASCII character`,
      false,
    );
  }
  return `${name}: ${value}`;
}

function mailboxText(mailbox: Mailbox): string {
  return mailbox.name === undefined ? mailbox.address : `"${mailbox.name}" <${mailbox.address}>`;
}

function termWords(term: PaymentTerm): string {
  return `${term} (${TERM_MS[term] / 86_400_000} days)`;
}

/**
 * The key message as RFC 5322 text with MIME headers (text/plain, UTF-8 charset, 7bit).
 *
 * @param message - what to say (checked with {@link checkKeyMessage})
 * @param from - the sender: `addr@example.com` or `Display Name <addr@example.com>`
 * @param date - the Date header's instant
 * @returns the whole message, CRLF line ends, ending with CRLF
 * @throws DeliveryError (`invalid_message`, not retryable) for a field that cannot be written,
 *   a line break in any header value included; its message never holds the key
 * @example keyMessageEml(message, DEFAULT_FROM, new Date())
 */
export function keyMessageEml(message: KeyMessage, from: string, date: Date): string {
  checkKeyMessage(message);
  const sender = typeof from === 'string' ? parseMailbox(from) : undefined;
  if (sender === undefined) {
    throw new DeliveryError(
      'invalid_message',
      'the key message cannot be written: the sender must be addr@domain or "Name <addr@domain>", in ASCII without line breaks',
      false,
    );
  }
  const headers = [
    header('From', mailboxText(sender)),
    header('To', message.to),
    header('Subject', `Your Evidence Room API key (${message.tier}, ${message.term})`),
    header('Date', rfc5322Date(date)),
    header('Message-ID', keyMessageId(message.tx_hash)),
    // RFC 3834: a machine wrote this; auto-responders must not answer it.
    header('Auto-Submitted', 'auto-generated'),
    header('MIME-Version', '1.0'),
    header('Content-Type', 'text/plain; charset=utf-8'),
    header('Content-Transfer-Encoding', '7bit'),
  ];
  const expires = new Date(message.expires_at).toISOString();
  const base = message.service_url?.replace(/\/+$/, '');
  const body = [
    'Your Evidence Room API key',
    '',
    'You paid for an API key with the transaction',
    message.tx_hash,
    '',
    'It is shown here and nowhere else: the service keeps only a hash of it',
    'and cannot show it again. Keep it secret, as you would a password.',
    '',
    `API key:  ${message.key}`,
    `Tier:     ${message.tier}`,
    `Term:     ${termWords(message.term)}`,
    `Expires:  ${expires}`,
    `Tenant:   ${message.tenant_id}`,
    ...(base === undefined ? [] : [`Service:  ${base}`]),
    '',
    'How to use it: send it with every request in the Authorization header,',
    '',
    `  Authorization: Bearer ${message.key}`,
    '',
    ...(base === undefined
      ? []
      : [
          'for example:',
          '',
          `  curl -X POST "${base}/v1/receipt/emit?profile=standard" \\`,
          `    -H "Authorization: Bearer ${message.key}" \\`,
          `    -H "content-type: application/json" --data '{...}'`,
          '',
        ]),
    'After the expiry the key answers 401 key_expired. To renew, pay again',
    'with the same contact and tier: the new term is added to this one.',
  ];
  return [...headers, '', ...body].join(CRLF) + CRLF;
}
