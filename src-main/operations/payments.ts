/**
 * API keys bought on chain (PROTOCOL section 13; docs/payments.md): what a payment transaction
 * comes to, recorded before anything is issued, and exactly one key per transaction.
 *
 * {@link observePayment} judges one transaction from the chain (status, our token's Transfer to
 * the treasury, the transfer call and its memo, the amount against the tier's price), records it,
 * and once it has its confirmations fetches it again and issues in ONE ledger transaction: the
 * tenant (made for a new contact and tier, or its term extended), the key (stored as its SHA-256,
 * bound to the transaction by the UNIQUE `api_keys.payment_tx`), the payment `issued` with its
 * delivery pending. The key is derived, never stored: HMAC-SHA256 under the secret in
 * `<data>/service/payment-key-secret` of the network and the transaction, so issuing again after a
 * crash, and every delivery attempt, come to the same key.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  formatUnits,
  MONTHLY_PRICE_UNITS,
  TERM_MS,
  termPaid,
  type DeliveryChannel,
  type PaymentState,
  type PaymentTerm,
  type PaymentView,
} from '../../src-shared/api/payments';
import { API_KEY_PREFIXES, isTenantId } from '../../src-shared/api/vocabulary';
import {
  contactKind,
  deliveryAddress,
  normalizeContact,
  parseMemo,
  splitTransferCalldata,
  type PaymentMemo,
} from '../../src-shared/payments/memo';
import { ANCHOR_FOLDER } from '../anchor/anchoring';
import { ChainClient, ChainError } from '../anchor/chain';
import { readStoredStablecoin, StablecoinChain, type PaymentTransaction } from '../anchor/stablecoin';
import { failpoint } from '../core/failpoints';
import type { PaymentRecord } from '../ledger';
import { OperationError } from './errors';
import { SERVICE_KEYS_FOLDER } from './service-keys';
import { newNodeId, paymentSecretMismatch } from './service-node';
import type { Lease, ServiceStore } from './service-store';
import type { Workspace } from './workspace';

/** The secret bought keys are derived under, in the service folder of the data folder. */
export const PAYMENT_KEY_SECRET_FILE = 'payment-key-secret';
/** What the derivation's message starts with (the version of the rule). */
const KEY_DERIVATION_LABEL = 'evroom-apikey/1';
/** Random characters of a key after its tier prefix, and the ones its listed prefix keeps. */
const KEY_RANDOM_LENGTH = 32;
const PREFIX_RANDOM_LENGTH = 8;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** How a payment is observed. */
export interface ObserveOptions {
  /** Blocks the transaction's block must be deep (head − block + 1) before a key is issued; 1 or more. */
  confirmations: number;
  /** The clock (tests move it). Default: now. */
  now?: Date;
  /** How mail goes out on this service (a did:key contact's key is always sealed). Default `outbox`. */
  mailChannel?: 'outbox' | 'smtp';
}

/** What a judged transaction comes to, before confirmations. */
export interface Judgement {
  state: PaymentState;
  reason: string;
  token: string | null;
  amount: bigint | null;
  memo?: PaymentMemo;
  term?: PaymentTerm;
}

function checkTxHash(txHash: unknown): string {
  if (typeof txHash !== 'string' || !TX_HASH.test(txHash)) {
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      'A transaction hash is 0x followed by 64 hexadecimal digits.',
      { details: [{ path: '/tx', message: 'not a transaction hash' }] },
    );
  }
  return txHash.toLowerCase();
}

function chainFailure(error: unknown): never {
  if (error instanceof ChainError) {
    throw new OperationError('refused', 'chain_unavailable', `The chain could not be read: ${error.message}`, {
      cause: error,
    });
  }
  throw error;
}

function instant(now: Date | undefined): number {
  const at = now ?? new Date();
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw new TypeError('now must be a valid Date');
  return at.getTime();
}

/**
 * What a mined transaction comes to as a payment to this service (no confirmations considered):
 * `pending_confirmations` for a valid payment (with its memo and term), else the state without a key.
 *
 * @param transaction - The transaction and its receipt's Transfer logs.
 * @param config - The service's token and treasury (lowercase).
 */
export function judgePayment(transaction: PaymentTransaction, config: { token: string; treasury: string }): Judgement {
  const { token, treasury } = config;
  if (transaction.status !== 'success')
    return {
      state: 'reverted',
      reason: 'The transaction failed on chain (reverted): no tokens moved.',
      token: transaction.to,
      amount: null,
    };
  const ours = transaction.transfers.filter((transfer) => transfer.token === token && transfer.to === treasury);
  if (ours.length === 0) {
    const other = transaction.transfers.find((transfer) => transfer.to === treasury);
    return {
      state: 'wrong_token',
      reason:
        other === undefined
          ? `The transaction moves none of the service's token (${token}) to its treasury (${treasury}).`
          : `The transaction pays the treasury in the token ${other.token}, not the service's token ${token}; it is ignored.`,
      token: other?.token ?? null,
      amount: other?.amount ?? null,
    };
  }
  const amount = ours.reduce((sum, transfer) => sum + transfer.amount, 0n);
  if (transaction.to !== token)
    return {
      state: 'memo_invalid',
      reason: `The transaction calls ${transaction.to ?? 'no contract'}, not the token ${token}: the memo must follow the token's own transfer call.`,
      token,
      amount,
    };
  const call = splitTransferCalldata(transaction.input);
  if (call === undefined)
    return {
      state: 'memo_invalid',
      reason: 'The call is not transfer(address,uint256) (selector a9059cbb): no memo can follow it.',
      token,
      amount,
    };
  if (call.recipient !== treasury)
    return {
      state: 'memo_invalid',
      reason: `The transfer call pays ${call.recipient}, not the treasury ${treasury}.`,
      token,
      amount,
    };
  const memo = parseMemo(call.memo);
  if (!memo.ok) return { state: 'memo_invalid', reason: memo.reason, token, amount };
  const tier = memo.memo.tier;
  if (tier === 'enterprise')
    return {
      state: 'contact_sales',
      reason: `Enterprise is sold by contact: the payment of ${formatUnits(amount)} is recorded for sales, who will write to ${deliveryAddress(memo.memo.contact)}; no key is issued.`,
      token,
      amount,
      memo: memo.memo,
    };
  const term = termPaid(tier, amount);
  if (term === undefined)
    return {
      state: 'underpaid',
      reason: `Paid ${formatUnits(amount)}; the ${tier} month is ${formatUnits(MONTHLY_PRICE_UNITS[tier])}: no key is issued.`,
      token,
      amount,
      memo: memo.memo,
    };
  return {
    state: 'pending_confirmations',
    reason: `Paid ${formatUnits(amount)} for a ${tier} ${term}.`,
    token,
    amount,
    memo: memo.memo,
    term,
  };
}

/** Where the secret bought keys are derived under lives in a data folder. */
function paymentKeySecretFile(workspace: Workspace): string {
  return path.join(workspace.dataDirectory, SERVICE_KEYS_FOLDER, PAYMENT_KEY_SECRET_FILE);
}

/**
 * The secret bought keys are derived under; `create` makes it (32 random bytes, 0600) when the
 * data folder has none, else a missing one is undefined.
 */
function readPaymentKeySecret(workspace: Workspace, create: boolean): Buffer | undefined {
  const file = paymentKeySecretFile(workspace);
  if (!fs.existsSync(file)) {
    if (!create) return undefined;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const secret = randomBytes(32);
    try {
      // `wx`: two processes starting at once keep the first secret, never two.
      fs.writeFileSync(file, `${secret.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new OperationError(
      'refused',
      'payment_secret_invalid',
      `${file} is not 64 lowercase hex digits; restore it from a backup (keys already sold are derived from it).`,
    );
  return Buffer.from(text, 'hex');
}

function paymentKeySecret(workspace: Workspace): Buffer {
  return readPaymentKeySecret(workspace, true) as Buffer;
}

/**
 * The payment key secret's id in the database's key registry (docs/deploy.md): `payment-secret:`
 * and 32 hex digits of a SHA-256 over a label and the secret, which tells secrets apart and
 * reveals nothing of them. Made with the secret when the data folder has none (`evroom serve`'s
 * first start, so that the `service/` folder copied to the other nodes holds it).
 */
export function paymentKeySecretId(workspace: Workspace): string {
  return secretId(paymentKeySecret(workspace));
}

function secretId(secret: Buffer): string {
  const digest = createHash('sha256').update(`${KEY_DERIVATION_LABEL}\0secret-id\0`, 'utf8').update(secret);
  return `payment-secret:${digest.digest('hex').slice(0, 32)}`;
}

/**
 * Checks, before a key is issued, that this data folder's payment key secret is the one the
 * service's database registered (the first node's): a key issued under another secret would be
 * delivered, by whichever node delivers it, as a key that does not work. On SQLite the ledger
 * and the secret share one data folder; a missing secret is made there.
 *
 * @throws OperationError payment_secret_missing (PostgreSQL, no secret in this data folder),
 *   service_key_mismatch (another secret), payment_secret_invalid; StoreUnavailableError
 */
export async function checkPaymentKeySecret(store: ServiceStore, workspace: Workspace, now: number): Promise<void> {
  const secret = readPaymentKeySecret(workspace, store.engine === 'sqlite');
  if (secret === undefined)
    throw new OperationError(
      'refused',
      'payment_secret_missing',
      `${paymentKeySecretFile(workspace)} is missing: bought keys are derived from the service's payment key secret, the same on every machine of its database; copy service/payment-key-secret from a node of the service (mode 600), then try again (docs/deploy.md).`,
    );
  const mine = secretId(secret);
  const [registered] = await store.cluster.claimServiceKeys([{ role: 'payment', key_id: mine }], newNodeId(), now);
  if (registered !== undefined && registered.key_id !== mine)
    throw paymentSecretMismatch(paymentKeySecretFile(workspace));
}

/**
 * The key a payment buys: derived from the secret, the network and the transaction (never stored).
 *
 * @returns the key and its listed prefix
 */
export function paymentKey(
  workspace: Workspace,
  network: string,
  txHash: string,
  tier: 'pro' | 'scale',
): { key: string; prefix: string } {
  const mac = createHmac('sha256', paymentKeySecret(workspace))
    .update(`${KEY_DERIVATION_LABEL}\0${network}\0${txHash}`, 'utf8')
    .digest()
    .subarray(0, 24)
    .toString('base64url');
  if (mac.length !== KEY_RANDOM_LENGTH) throw new Error('unexpected derived key length');
  return {
    key: `${API_KEY_PREFIXES[tier]}${mac}`,
    prefix: `${API_KEY_PREFIXES[tier]}${mac.slice(0, PREFIX_RANDOM_LENGTH)}`,
  };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The tenant a contact's payments for a tier go to: `pay-<tier>-<slug>`, the slug being the
 * contact in [a-z0-9.-] cut to fit, followed by `-` and 8 hex of SHA-256(contact) when it was
 * changed or cut, or when it ends like such a suffix itself (so no contact's slug can pass for
 * another's hashed one). `long` gives 16 hex digits, the id used when the short one belongs to
 * another contact (docs/protocol.md, "Tenants of bought keys").
 *
 * @param tier - pro or scale.
 * @param contact - A normalized contact.
 */
export function paymentTenantId(tier: 'pro' | 'scale', contact: string, long = false): string {
  const head = `pay-${tier}-`;
  const room = 64 - head.length;
  const slug = contact.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  const plain = slug === contact && slug.length <= room && !/-[0-9a-f]{8,16}$/.test(slug) && !long;
  if (plain) return `${head}${slug}`;
  const digits = long ? 16 : 8;
  const id = `${head}${slug.slice(0, room - digits - 1)}-${sha256Hex(contact).slice(0, digits)}`;
  if (!isTenantId(id)) throw new Error('a payment tenant id broke the tenant id rule');
  return id;
}

/** A payment as listed (never the key, nor its hash). */
export function paymentView(record: PaymentRecord): PaymentView {
  return {
    tx_hash: record.tx_hash,
    network: record.network,
    block_number: record.block_number,
    from: record.from,
    token: record.token,
    amount: record.amount,
    tier: record.tier,
    term: record.term,
    contact: record.contact,
    issuer_did: record.issuer_did,
    state: record.state,
    reason: record.reason,
    tenant_id: record.tenant_id,
    key_prefix: record.key_prefix,
    expires_at: record.expires_at,
    delivery: {
      channel: record.delivery_channel,
      state: record.delivery_state,
      to: record.delivery_to,
      attempts: record.delivery_attempts,
      last_error: record.delivery_last_error,
      delivered_at: record.delivered_at,
    },
    seen_at: record.seen_at,
    updated_at: record.updated_at,
  };
}

function depth(head: number, transaction: PaymentTransaction): number {
  return head - transaction.block_number + 1;
}

async function fetchTransaction(chain: StablecoinChain, txHash: string): Promise<PaymentTransaction | undefined> {
  try {
    return await chain.paymentTransaction(txHash);
  } catch (error) {
    return chainFailure(error);
  }
}

async function fetchHead(chain: StablecoinChain): Promise<number> {
  try {
    return await chain.head();
  } catch (error) {
    return chainFailure(error);
  }
}

/** Records a judged transaction the first time (with its audit row); a recorded one is left as it is. */
async function record(
  store: ServiceStore,
  network: string,
  transaction: PaymentTransaction,
  judgement: Judgement,
  at: number,
  lease: Lease | undefined,
): Promise<PaymentRecord> {
  const result = await store.payments.record(
    {
      network,
      tx_hash: transaction.tx_hash,
      block_number: transaction.block_number,
      block_hash: transaction.block_hash,
      from: transaction.from,
      token: judgement.token,
      amount: judgement.amount,
      tier: judgement.memo?.tier ?? null,
      term: judgement.term ?? null,
      contact: judgement.memo === undefined ? null : normalizeContact(judgement.memo.contact),
      issuer_did: judgement.memo?.issuer_did ?? null,
      state: judgement.state,
      reason: judgement.reason,
      at,
    },
    lease,
  );
  return result.record;
}

async function settle(
  store: ServiceStore,
  network: string,
  txHash: string,
  state: PaymentState,
  reason: string,
  at: number,
  lease: Lease | undefined,
): Promise<void> {
  await store.payments.settle({ network, tx_hash: txHash, state, reason, at }, lease);
}

/** Issues the key of a confirmed payment in one transaction; nothing when it is no longer waiting. */
async function issue(
  store: ServiceStore,
  workspace: Workspace,
  payment: PaymentRecord,
  mailChannel: 'outbox' | 'smtp',
  at: number,
  lease: Lease | undefined,
): Promise<void> {
  const tier = payment.tier;
  const term = payment.term;
  const contact = payment.contact;
  if ((tier !== 'pro' && tier !== 'scale') || term === null || contact === null)
    throw new Error('issue: a payment waiting for confirmations lacks its tier, term or contact');
  await checkPaymentKeySecret(store, workspace, at);
  const derived = paymentKey(workspace, payment.network, payment.tx_hash, tier);
  const channel: DeliveryChannel = contactKind(contact) === 'did_key' ? 'sealed' : mailChannel;
  const result = await store.payments.issueKey(
    {
      network: payment.network,
      tx_hash: payment.tx_hash,
      tier,
      term,
      contact,
      // The short id, or the long form when the short one is another contact's (or an operator's tenant).
      tenant_ids: [paymentTenantId(tier, contact), paymentTenantId(tier, contact, true)],
      key_sha256: createHash('sha256').update(derived.key, 'utf8').digest('hex'),
      key_prefix: derived.prefix,
      term_ms: TERM_MS[term],
      delivery_channel: channel,
      delivery_to: deliveryAddress(contact),
      reason: (tenantId, end) =>
        `${payment.reason ?? 'Paid.'} Key ${derived.prefix}… issued to the tenant ${tenantId}, paid until ${new Date(end).toISOString()}.`,
      at,
    },
    lease,
  );
  if (result.outcome === 'tenant_taken')
    throw new OperationError('conflict', 'conflict', `The tenant ${result.tenant_id} belongs to another contact.`);
}

/**
 * Observes one payment transaction: records what it comes to (the first time), and issues its key
 * once it has its confirmations. Seen again, a decided transaction changes nothing.
 *
 * @param store - The service's store (any node: issuing is decided under the payment's row lock).
 * @param workspace - The open workspace (the secret keys are derived under).
 * @param chain - The token and treasury payments go to, on their chain.
 * @param txHash - The transaction, `0x` and 64 hex.
 * @param options - Confirmations, the clock, the mail channel; `lease`, the payment watcher's
 *   lease, which every write checks (LeaseLostError when another node holds it now).
 * @returns the payment as it now stands
 * @throws OperationError invalid_request (not a hash), not_found (the chain does not know the
 *   transaction, or it is not mined, and it was never recorded), chain_unavailable; LeaseLostError;
 *   StoreUnavailableError
 */
export async function observePayment(
  store: ServiceStore,
  workspace: Workspace,
  chain: StablecoinChain,
  txHash: string,
  options: ObserveOptions & { lease?: Lease },
): Promise<PaymentView> {
  const hash = checkTxHash(txHash);
  const confirmations = options.confirmations;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1)
    throw new RangeError('observePayment: confirmations must be a whole number from 1');
  const at = instant(options.now);
  const mailChannel = options.mailChannel ?? 'outbox';
  const lease = options.lease;
  const network = chain.config.network;
  const payments = store.payments;
  const current = async (): Promise<PaymentView> =>
    paymentView((await payments.getPayment(network, hash)) as PaymentRecord);
  const known = await payments.getPayment(network, hash);
  if (known !== undefined && known.state !== 'pending_confirmations') return paymentView(known);

  const dropped = `The transaction left the chain before its ${confirmations} confirmation(s) (a reorganisation): no key is issued.`;
  const transaction = await fetchTransaction(chain, hash);
  if (transaction === undefined) {
    if (known === undefined)
      throw new OperationError(
        'not_found',
        'not_found',
        `The chain ${network} does not know the transaction ${hash}, or it is not mined yet.`,
        { details: [{ path: '/tx', message: 'no such mined transaction' }] },
      );
    await settle(store, network, hash, 'dropped', dropped, at, lease);
    return current();
  }
  const judgement = judgePayment(transaction, chain.config);
  const recorded = await record(store, network, transaction, judgement, at, lease);
  if (recorded.state !== 'pending_confirmations') return paymentView(recorded);
  if (judgement.state !== 'pending_confirmations') {
    // Recorded as valid, now judged otherwise: the transaction was mined again differently.
    await settle(store, network, hash, judgement.state, judgement.reason, at, lease);
    return current();
  }
  if (recorded.block_hash !== transaction.block_hash)
    await payments.movePending(
      {
        network,
        tx_hash: hash,
        block_number: transaction.block_number,
        block_hash: transaction.block_hash,
        at,
      },
      lease,
    );
  if (depth(await fetchHead(chain), transaction) < confirmations) return current();

  failpoint('payments.after-record');

  // Confirmed: fetch it again right before issuing; gone now means a reorganisation took it.
  const again = await fetchTransaction(chain, hash);
  if (again === undefined) {
    await settle(store, network, hash, 'dropped', dropped, at, lease);
  } else {
    const second = judgePayment(again, chain.config);
    if (second.state !== 'pending_confirmations')
      await settle(store, network, hash, second.state, second.reason, at, lease);
    else if (depth(await fetchHead(chain), again) >= confirmations)
      await issue(store, workspace, recorded, mailChannel, at, lease);
  }
  return current();
}

/**
 * Payments, the most recently seen first.
 *
 * @param options - `limit`: 1 to 1000 (default 100).
 */
export async function listPayments(store: ServiceStore, options: { limit?: number } = {}): Promise<PaymentView[]> {
  const limit = options.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
    throw new OperationError('invalid_input', 'invalid_request', 'The limit is a whole number from 1 to 1000.', {
      details: [{ path: '/limit', message: 'out of range' }],
    });
  return (await store.payments.list({ limit })).map(paymentView);
}

/**
 * One payment by its transaction hash (the most recently seen, should two networks have one).
 *
 * @throws OperationError invalid_request for a hash that is not one
 */
export async function paymentStatus(store: ServiceStore, txHash: string): Promise<PaymentView | undefined> {
  const [latest] = await store.payments.findByTx(checkTxHash(txHash));
  return latest === undefined ? undefined : paymentView(latest);
}

/**
 * The sealed envelope of a key bought for a did:key, for its pickup.
 *
 * @returns the envelope (JSON) as stored
 * @throws OperationError not_found (no such payment, or its key is not sealed yet), not_sealed
 *   (the key went by mail), invalid_request
 */
export async function sealedEnvelope(store: ServiceStore, txHash: string): Promise<unknown> {
  const hash = checkTxHash(txHash);
  const stored = await store.payments.sealedEnvelope(hash);
  if (stored !== undefined) return JSON.parse(stored) as unknown;
  const [payment] = await store.payments.findByTx(hash);
  if (payment !== undefined && payment.state === 'issued' && payment.delivery_channel !== 'sealed')
    throw new OperationError(
      'conflict',
      'not_sealed',
      'The key of this payment went by mail to its contact; there is nothing to pick up.',
    );
  throw new OperationError(
    'not_found',
    'not_found',
    payment?.state === 'issued'
      ? 'The key of this payment is not sealed yet; try again shortly.'
      : 'No sealed key is waiting for this transaction.',
  );
}

/** Where `evroom apikeys redeem` reads the chain: an RPC, and the token, treasury and network (or the embedded chain's stored ones). */
export interface RedeemChain {
  rpcUrl: string;
  /** The token and treasury (`0x` + 40 hex) and the service's network name; all three, or none for the embedded chain's. */
  token?: string;
  treasury?: string;
  network?: string;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The payment token a redeem reads: the one named, or the embedded chain's from
 * `<data>/anchor/stablecoin.json`, checked against the RPC's chain id.
 *
 * @throws OperationError invalid_request (a partial or malformed naming), not_found (no stored
 *   stablecoin), chain_mismatch, chain_unavailable
 */
export async function redeemChain(workspace: Workspace, where: RedeemChain): Promise<StablecoinChain> {
  const named = [where.token, where.treasury, where.network].filter((value) => value !== undefined).length;
  if (named !== 0 && named !== 3)
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      'Name the token, the treasury and the network together, or none of them to use the embedded chain’s.',
    );
  for (const [name, value] of [
    ['token', where.token],
    ['treasury', where.treasury],
  ] as const)
    if (value !== undefined && !ADDRESS.test(value))
      throw new OperationError('invalid_input', 'invalid_request', `The ${name} is 0x and 40 hex digits.`, {
        details: [{ path: `/${name}`, message: 'not an address' }],
      });
  if (where.network !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(where.network))
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      'The network is the service’s chain name: 1 to 64 characters from A-Z a-z 0-9 . _ -.',
      { details: [{ path: '/network', message: 'not a network name' }] },
    );
  let client: ChainClient;
  try {
    client = new ChainClient(where.rpcUrl);
  } catch (error) {
    if (error instanceof ChainError)
      throw new OperationError('invalid_input', 'invalid_request', error.message, {
        details: [{ path: '/rpc', message: 'not an http(s) URL' }],
      });
    throw error;
  }
  let chainId: number;
  try {
    chainId = await client.chainId();
  } catch (error) {
    return chainFailure(error);
  }
  if (named === 3)
    return new StablecoinChain(client, {
      network: where.network as string,
      chainId,
      token: (where.token as string).toLowerCase(),
      treasury: (where.treasury as string).toLowerCase(),
      decimals: 6,
      embedded: false,
    });
  let stored: ReturnType<typeof readStoredStablecoin>;
  try {
    stored = readStoredStablecoin(path.join(workspace.dataDirectory, ANCHOR_FOLDER));
  } catch (error) {
    return chainFailure(error);
  }
  if (stored === undefined)
    throw new OperationError(
      'not_found',
      'not_found',
      'This data folder has no embedded stablecoin yet (evroom serve deploys it on first start); name the chain’s with --token, --treasury and --network.',
    );
  if (stored.chain_id !== chainId)
    throw new OperationError(
      'refused',
      'chain_mismatch',
      `The RPC answers for chain ${chainId}, but the stored stablecoin is on chain ${stored.chain_id} (${stored.network}).`,
    );
  return new StablecoinChain(client, {
    network: stored.network,
    chainId,
    token: stored.token,
    treasury: stored.treasury,
    decimals: 6,
    embedded: true,
  });
}
