/**
 * The errors of key delivery (docs/protocol.md, "Delivery of bought keys").
 *
 * Neither ever holds the API key: a delivery error is logged and recorded beside the payment,
 * and the key belongs only in the buyer's message.
 */
import { DomainError } from '../../src-shared/api/domain-error';

/**
 * One delivery attempt failed.
 *
 * `retryable` says whether trying again later may succeed: a mail server that is down, slow or
 * refuses for now (4xx) is; a message that can never be written (a recipient address that is no
 * address, a permanent 5xx refusal) is not. The delivery worker decides what to do with either;
 * the message says what happened in a few words and never holds the key or a password.
 */
export class DeliveryError extends Error {
  /** Whether a later attempt may succeed. */
  readonly retryable: boolean;
  /** A short machine-readable reason: `unreachable`, `timeout`, `refused`, `auth`, `tls`, `io`, `invalid_message`. */
  readonly reason: string;
  constructor(reason: string, message: string, retryable: boolean) {
    super(message);
    this.name = 'DeliveryError';
    this.reason = reason;
    this.retryable = retryable;
  }
}

/**
 * A mail transport's configuration is unusable (a bad `--smtp` URL): said at start, before any
 * payment waits on it. The message never repeats the URL, which may hold a password.
 */
export class DeliveryConfigError extends DomainError {
  override readonly code = 'invalid_mail_config';
  override readonly kind = 'invalid_input';
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryConfigError';
  }
}
