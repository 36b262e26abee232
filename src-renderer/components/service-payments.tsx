/**
 * Payments for API keys in the Service view (PROTOCOL section 13, docs/payments.md): each
 * payment the ledger recorded, with its state in words, tier, term, contact, the issued key's
 * prefix and its delivery; and, while the app's service runs on the embedded development chain,
 * a form that buys a key with a development account's test tokens.
 *
 * The key itself never reaches the app: it goes to the buyer's contact (a message in the data
 * folder's outbox, mail over SMTP, or sealed to a did:key and picked up by transaction hash), so
 * the view says where it went instead of showing it.
 */
import { useState, type ReactNode } from 'react';
import { DEVELOPMENT_ACCOUNT_COUNT, type BuyKeyInput, type ServiceStatus } from '../../src-shared/api/contract';
import {
  ANNUAL_MONTHS_PRICE,
  MONTHLY_PRICE_UNITS,
  formatUnits,
  type PaidTier,
  type PaymentState,
  type PaymentView,
} from '../../src-shared/api/payments';
import { api, useApi } from '../api';
import { CopyableValue } from './copyable-value';
import { FieldError, formField, refusalErrors, type FieldErrors } from './form-field';
import { truncateMiddle } from './receipts-shared';
import { Button, Code, EmptyState, ErrorNotice, Loading, Panel, TableScroll, formatCount, formatInstant } from './ui';

type BadgeTone = 'good' | 'bad' | 'warn' | 'neutral' | 'other';

/** Each state in words, with an icon and a tone; the words always say it, the colour only repeats it. */
const STATE_WORDS: Readonly<Record<PaymentState, { label: string; icon: string; tone: BadgeTone }>> = {
  issued: { label: 'issued', icon: '✓', tone: 'good' },
  pending_confirmations: { label: 'waiting for confirmations', icon: '…', tone: 'neutral' },
  underpaid: { label: 'underpaid: no key', icon: '✗', tone: 'bad' },
  memo_invalid: { label: 'memo invalid: no key', icon: '✗', tone: 'bad' },
  wrong_token: { label: 'wrong token: ignored', icon: '–', tone: 'warn' },
  contact_sales: { label: 'enterprise: sales will contact', icon: '✉', tone: 'other' },
  reverted: { label: 'reverted on chain: no key', icon: '✗', tone: 'bad' },
  dropped: { label: 'dropped from the chain: no key', icon: '✗', tone: 'bad' },
};

const DELIVERY_CHANNEL_WORDS = { outbox: 'outbox folder', smtp: 'mail (SMTP)', sealed: 'sealed for pickup' } as const;

type BuyField = 'tier' | 'contact' | 'issuer_did' | 'annual' | 'account';
type BuyErrors = FieldErrors<BuyField>;

/** A folder inside the data folder, written with the data folder's own separator. */
function insideDataFolder(dataDirectory: string, ...parts: string[]): string {
  const separator = dataDirectory.includes('\\') && !dataDirectory.includes('/') ? '\\' : '/';
  return [dataDirectory.replace(/[\\/]+$/, ''), ...parts].join(separator);
}

/** What a term costs, in the token's decimals. */
function priceText(tier: PaidTier, annual: boolean): string {
  return formatUnits(annual ? MONTHLY_PRICE_UNITS[tier] * ANNUAL_MONTHS_PRICE : MONTHLY_PRICE_UNITS[tier]);
}

function StateBadge({ payment }: { payment: PaymentView }) {
  const words = STATE_WORDS[payment.state];
  return (
    <span className={`badge badge-${words.tone} payment-state`} data-state={payment.state}>
      <span aria-hidden="true" className="badge-icon">
        {words.icon}
      </span>{' '}
      {words.label}
    </span>
  );
}

function DeliveryCell({ payment }: { payment: PaymentView }) {
  const { delivery } = payment;
  if (delivery.state === 'none' || delivery.channel === null) return <span className="muted">nothing to deliver</span>;
  return (
    <span className="payment-delivery" data-channel={delivery.channel} data-delivery={delivery.state}>
      <span>{DELIVERY_CHANNEL_WORDS[delivery.channel]}</span>{' '}
      {delivery.state === 'delivered' ? (
        <span className="badge badge-good">
          <span aria-hidden="true" className="badge-icon">
            ✓
          </span>{' '}
          delivered
        </span>
      ) : (
        <span className="badge badge-neutral">
          <span aria-hidden="true" className="badge-icon">
            …
          </span>{' '}
          pending{delivery.attempts > 0 ? `, ${formatCount(delivery.attempts)} tries` : ''}
        </span>
      )}
      {delivery.to && delivery.to !== payment.contact && <span className="muted payment-small">to {delivery.to}</span>}
      {delivery.state === 'pending' && delivery.last_error && (
        <span className="payment-small payment-error">last try: {delivery.last_error}</span>
      )}
    </span>
  );
}

/** The payments, newest first. */
function PaymentsTable({ payments }: { payments: PaymentView[] }) {
  return (
    <TableScroll label="Payments">
      <table className="table payments-table" data-testid="payments-table">
        <thead>
          <tr>
            <th scope="col">Seen (UTC)</th>
            <th scope="col">Transaction</th>
            <th scope="col">State</th>
            <th scope="col">Tier and term</th>
            <th scope="col">Contact</th>
            <th scope="col">Key prefix</th>
            <th scope="col">Delivery</th>
            <th scope="col">Expires</th>
          </tr>
        </thead>
        <tbody>
          {payments.map((payment) => (
            <tr
              key={payment.tx_hash}
              data-tx={payment.tx_hash}
              data-state={payment.state}
              data-delivery={payment.delivery.state}
            >
              {/* Date over time: the table has many columns to fit. */}
              <td className="payment-when">{formatInstant(payment.seen_at)}</td>
              <td>
                <CopyableValue
                  value={payment.tx_hash}
                  short={truncateMiddle(payment.tx_hash, 12)}
                  what="the transaction hash"
                  className="payment-tx"
                />
              </td>
              <td className="payment-state-cell">
                <StateBadge payment={payment} />
                {/* Why no key (or none yet); an issued payment's badge, prefix and expiry say it all. */}
                {payment.reason && payment.state !== 'issued' && (
                  <span className="muted payment-small">{payment.reason}</span>
                )}
              </td>
              <td className="payment-bought">
                <span data-testid="payment-tier">{payment.tier ?? '—'}</span>,{' '}
                <span data-testid="payment-term">{payment.term === null ? 'no term' : `a ${payment.term}`}</span>
                {payment.amount !== null && (
                  <span className="muted payment-small payment-amount">{formatUnits(BigInt(payment.amount))} paid</span>
                )}
              </td>
              <td className={`payment-contact${payment.contact?.startsWith('did:') ? ' payment-contact-did' : ''}`}>
                {payment.contact ?? <span className="muted">—</span>}
              </td>
              <td className="payment-prefix">
                {payment.key_prefix ? <Code>{payment.key_prefix}…</Code> : <span className="muted">no key</span>}
              </td>
              <td className="payment-delivery-cell">
                <DeliveryCell payment={payment} />
              </td>
              <td className="payment-when">{formatInstant(payment.expires_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Where a bought key went, in words, once the service has recorded the payment. */
function whereItWent(payment: PaymentView | undefined, outbox: string, serviceUrl: string | undefined): ReactNode {
  if (payment === undefined)
    return 'Waiting for the service’s watcher to see the transaction; it appears in the table within a few seconds.';
  if (payment.state !== 'issued') return `The service recorded it as “${STATE_WORDS[payment.state].label}”.`;
  const pending = payment.delivery.state === 'delivered' ? '' : ' (being delivered)';
  switch (payment.delivery.channel) {
    case 'outbox':
      return (
        <>
          The key {payment.key_prefix ? <Code>{payment.key_prefix}…</Code> : null} went to{' '}
          {payment.delivery.to ?? 'the contact'} as a message in the outbox folder{pending}:{' '}
          <Code>{insideDataFolder(outbox, `${payment.tx_hash}.eml`)}</Code>. It is not shown in the app.
        </>
      );
    case 'smtp':
      return (
        <>
          The key {payment.key_prefix ? <Code>{payment.key_prefix}…</Code> : null} was mailed to{' '}
          {payment.delivery.to ?? 'the contact'}
          {pending}. It is not shown in the app.
        </>
      );
    case 'sealed':
      return (
        <>
          The key {payment.key_prefix ? <Code>{payment.key_prefix}…</Code> : null} is sealed to{' '}
          {payment.delivery.to ?? 'the did:key'}
          {pending}; only that DID’s holder opens it, after fetching it with <Code>evroom apikeys pickup</Code> from{' '}
          <Code>{`${serviceUrl ?? ''}/v1/apikeys/pickup/${payment.tx_hash}`}</Code>.
        </>
      );
    default:
      return 'The key is on its way to the contact. It is not shown in the app.';
  }
}

/** The form that buys a key on the embedded chain, and what became of the last purchase. */
function BuyKeyForm({
  status,
  outbox,
  payments,
  onSent,
}: {
  status: ServiceStatus;
  outbox: string;
  payments: PaymentView[] | undefined;
  onSent: () => void;
}) {
  const [tier, setTier] = useState<PaidTier>('pro');
  const [contact, setContact] = useState('');
  const [issuerDid, setIssuerDid] = useState('');
  const [annual, setAnnual] = useState(false);
  const [account, setAccount] = useState(0);
  const [errors, setErrors] = useState<BuyErrors>({});
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<{ tx_hash: string; tier: PaidTier; annual: boolean } | undefined>(undefined);

  const buy = async (): Promise<void> => {
    const trimmed = contact.trim();
    if (trimmed === '') {
      setErrors({ contact: 'Enter where the key goes: an e-mail address, a domain or a did:key.' });
      return;
    }
    const input: BuyKeyInput = { tier, contact: trimmed, annual, account };
    if (issuerDid.trim() !== '') input.issuer_did = issuerDid.trim();
    setSending(true);
    setErrors({});
    try {
      const answer = await api['service.buyKey'](input);
      setSent({ tx_hash: answer.tx_hash, tier, annual });
      onSent();
    } catch (reason) {
      setErrors(refusalErrors<BuyField>(reason, ['tier', 'contact', 'issuer_did', 'annual', 'account']));
    } finally {
      setSending(false);
    }
  };

  const field = formField;

  const sentPayment = sent && payments?.find((payment) => payment.tx_hash === sent.tx_hash);

  return (
    <section className="payments-buy" aria-labelledby="payments-buy-title">
      <h3 id="payments-buy-title">Buy an API key (development chain)</h3>
      <p className="notice notice-warn payments-test-tokens" data-testid="payments-test-tokens">
        This pays with <strong>test tokens on the local development chain</strong> ({status.payments?.network}), from
        one of its development accounts: no real money moves. On a real chain a buyer pays with their own wallet:{' '}
        <Code>evroom apikeys buy</Code>. The key is never shown here: an e-mail or domain contact gets it as a message
        in the outbox folder <Code>{outbox}</Code>; a did:key gets it sealed, to pick up by transaction hash.
      </p>
      <form
        className="service-form payments-buy-form"
        aria-label="Buy an API key on the development chain"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void buy();
        }}
      >
        {field(
          'buy-tier',
          'Plan',
          errors.tier,
          <select
            id="buy-tier"
            value={tier}
            aria-invalid={errors.tier ? true : undefined}
            aria-describedby={errors.tier ? 'buy-tier-error' : 'buy-tier-hint'}
            onChange={(event) => setTier(event.currentTarget.value as PaidTier)}
          >
            <option value="pro">pro: {priceText('pro', false)} a month</option>
            <option value="scale">scale: {priceText('scale', false)} a month</option>
          </select>,
          'The key’s tier; its prefix and quota follow it.',
        )}
        {field(
          'buy-contact',
          'Contact',
          errors.contact,
          <input
            id="buy-contact"
            type="text"
            value={contact}
            maxLength={320}
            spellCheck={false}
            autoComplete="off"
            placeholder="buyer@example.com"
            aria-invalid={errors.contact ? true : undefined}
            aria-describedby={errors.contact ? 'buy-contact-error' : 'buy-contact-hint'}
            onChange={(event) => {
              setContact(event.currentTarget.value);
              setErrors({});
            }}
          />,
          'Where the key goes: an e-mail address, a domain (its postmaster) or a did:key:z6Mk….',
        )}
        {field(
          'buy-issuer',
          'Issuer DID (optional)',
          errors.issuer_did,
          <input
            id="buy-issuer"
            type="text"
            value={issuerDid}
            maxLength={512}
            spellCheck={false}
            autoComplete="off"
            placeholder="did:web:agent.example.com"
            aria-invalid={errors.issuer_did ? true : undefined}
            aria-describedby={errors.issuer_did ? 'buy-issuer-error' : 'buy-issuer-hint'}
            onChange={(event) => {
              setIssuerDid(event.currentTarget.value);
              setErrors({});
            }}
          />,
          'The DID the key’s receipts are issued for, carried in the memo.',
        )}
        {field(
          'buy-account',
          'Development account',
          errors.account,
          <select
            id="buy-account"
            value={account}
            aria-invalid={errors.account ? true : undefined}
            aria-describedby={errors.account ? 'buy-account-error' : 'buy-account-hint'}
            onChange={(event) => setAccount(Number(event.currentTarget.value))}
          >
            {Array.from({ length: DEVELOPMENT_ACCOUNT_COUNT }, (_, index) => (
              <option key={index} value={index}>
                account {index}
              </option>
            ))}
          </select>,
          'One of the local chain’s funded test accounts.',
        )}
        <div className="service-field payments-annual">
          <label className="service-scope">
            <input
              type="checkbox"
              checked={annual}
              aria-describedby="buy-annual-hint"
              onChange={(event) => setAnnual(event.currentTarget.checked)}
            />{' '}
            Pay for a year
          </label>
          <p className="field-hint" id="buy-annual-hint">
            Ten months’ price: {priceText(tier, true)} for 365 days.
          </p>
          <FieldError id="buy-annual-error" message={errors.annual} />
        </div>
        <div className="service-form-actions">
          <Button type="submit" variant="primary" disabled={sending}>
            {sending ? 'Paying…' : `Pay ${priceText(tier, annual)} test tokens`}
          </Button>
        </div>
        <FieldError id="buy-form-error" message={errors.form} />
      </form>
      {sent && (
        <div className="notice notice-info payments-sent" role="status" data-testid="payments-sent">
          <p>
            <span aria-hidden="true">✓ </span>
            Sent {priceText(sent.tier, sent.annual)} for a {sent.tier} {sent.annual ? 'year' : 'month'}. Transaction:{' '}
            <CopyableValue value={sent.tx_hash} what="the payment’s transaction hash" testId="payments-sent-tx" />
          </p>
          <p data-testid="payments-sent-where">{whereItWent(sentPayment, outbox, status.url)}</p>
        </div>
      )}
    </section>
  );
}

/**
 * The Payments panel.
 *
 * @param status - the service's state (the buy form shows only while it runs on the embedded chain)
 * @param generation - bumped by the page while the service runs, to re-read the payments
 */
export function ServicePayments({ status, generation }: { status: ServiceStatus | undefined; generation: number }) {
  const [sentGeneration, setSentGeneration] = useState(0);
  const payments = useApi('service.payments', {}, `${generation}-${sentGeneration}`);
  const info = useApi('info', undefined);
  const running = status?.running === true;
  const chain = running ? status?.payments : undefined;
  const outbox = info.data ? insideDataFolder(info.data.dataDirectory, 'outbox') : 'outbox';

  return (
    <Panel title={payments.data ? `Payments (${formatCount(payments.data.length)})` : 'Payments'}>
      <p className="muted payments-intro">
        API keys bought on chain: a transfer of the tier’s price in the stablecoin to the treasury, with a memo naming
        the tier and a contact. The service’s watcher records each payment and delivers the key to that contact only;
        the key is never shown in the app.
      </p>
      {chain && (
        <dl className="payments-chain" data-testid="payments-chain">
          <dt>Chain</dt>
          <dd>
            {chain.network} (chain id {chain.chainId}){chain.embedded ? ', the embedded development chain' : ''}
          </dd>
          <dt>Token</dt>
          <dd>
            <CopyableValue value={chain.token} what="the stablecoin’s address" />
          </dd>
          <dt>Treasury</dt>
          <dd>
            <CopyableValue value={chain.treasury} what="the treasury’s address" />
          </dd>
        </dl>
      )}
      {payments.error ? (
        <ErrorNotice title="The payments could not be loaded" message={payments.error} />
      ) : !payments.data ? (
        <Loading label="Loading payments…" />
      ) : payments.data.length === 0 ? (
        <EmptyState title="No payments yet">
          A buyer pays the tier’s price ({priceText('pro', false)} a month for pro, {priceText('scale', false)} for
          scale; a year for ten months’ price) to the treasury with <Code>evroom apikeys buy</Code>
          {chain?.embedded ? ', or with the form below on the development chain' : ''}. The payment appears here with
          its state, and the key goes to the buyer’s contact.
          {!running && ' Start the service: its watcher reads the payments from the chain.'}
        </EmptyState>
      ) : (
        <PaymentsTable payments={payments.data} />
      )}
      {running && status && chain?.embedded && (
        <BuyKeyForm
          status={status}
          outbox={outbox}
          payments={payments.data}
          onSent={() => setSentGeneration((value) => value + 1)}
        />
      )}
    </Panel>
  );
}
