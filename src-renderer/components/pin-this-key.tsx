/**
 * "Pin this key…" on a receipt: what can be done about the trust in its signer.
 *
 * An `unpinned` receipt's signature verifies under a key that is not in the trust store: the
 * action opens the Trust store's pin form filled in with that key (the user checks and confirms
 * there; nothing is pinned from here). An `unattributed` receipt's named key did not sign it
 * (PROTOCOL section 1): it offers no pin, and says why.
 */
import type { ReceiptDetail } from '../../src-shared/api/contract';
import { hrefFor } from '../router';
import { Code } from './ui';
import './pin-this-key.css';

/** The trust action of one receipt, or nothing when its trust needs none. */
export function PinThisKey({ receipt }: { receipt: ReceiptDetail }) {
  if (receipt.trust === 'unpinned') {
    if (receipt.issuer_key_id === null) {
      return (
        <div className="notice notice-info pin-this-key" data-testid="pin-this-key">
          <p>
            The signature verifies, but its key is not in your trust store and the document gives the key no id, so it
            cannot be pinned from here.
          </p>
        </div>
      );
    }
    return (
      <div className="notice notice-info pin-this-key" data-testid="pin-this-key">
        <p>
          The signature verifies, but its key <Code>{receipt.issuer_key_id}</Code> is not in your trust store: the
          receipt is genuine, from a signer you have not vouched for. If you know its owner, pin the key (you check it
          and confirm on the next page).
        </p>
        <p className="pin-this-key-action">
          <a
            className="button button-secondary"
            href={hrefFor(['trust'], { pin: receipt.issuer_key_id, receipt: String(receipt.id) })}
          >
            Pin this key…
          </a>
        </p>
      </div>
    );
  }
  if (receipt.trust === 'unattributed') {
    const claimed = receipt.report.trust.claimed_key_id ?? receipt.issuer_key_id;
    return (
      <div className="notice notice-info pin-this-key" data-testid="no-pin-unattributed">
        <p>
          <span aria-hidden="true">✗ </span>
          No key to pin: this document names {claimed ? <Code>{claimed}</Code> : 'a signing key'}, but that key did not
          sign what is here (it was altered after signing, or the signature is wrong). Pinning that key would not make
          this document trusted.
        </p>
      </div>
    );
  }
  return null;
}
