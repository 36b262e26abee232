/**
 * A buyer's client of the service's payment routes (docs/payments.md): the price ladder's chains,
 * what became of a payment, and the sealed key waiting for a did:key buyer.
 *
 * Every answer is checked for the shape the service documents before anything is done with it:
 * a buyer pays to the token and treasury read here, so a garbled answer must stop the purchase,
 * not send money somewhere. No API key is sent to these routes; they are public.
 */
import {
  DELIVERY_STATES,
  PAYMENT_STATES,
  PAYMENT_TERMS,
  type DeliveryState,
  type PaymentState,
  type PaymentTerm,
  type PricingChain,
} from '../../src-shared/api/payments';
import type { JsonValue } from '../../src-shared/json/types';
import { AnchorServiceError, checkApiUrl, DEFAULT_TIMEOUT_MS, serviceGet } from './anchor-client';

const TX_HASH = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
const UNITS = /^[1-9][0-9]{0,30}$/;

type JsonObject = { [name: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unexpected(status: number, why: string): AnchorServiceError {
  return new AnchorServiceError(status, 'unexpected_answer', `The service's answer ${why}.`);
}

/** A payment's state as `GET /v1/payments/:tx` answers it (no contact, no key). */
export interface PaymentStatusAnswer {
  tx_hash: string;
  network: string;
  state: PaymentState;
  tier: string | null;
  term: PaymentTerm | null;
  /** When the term ends, ms since the epoch (the route answers RFC 3339). */
  expires_at: number | null;
  delivery: { channel: string | null; state: DeliveryState };
}

function checkTxHash(txHash: string): string {
  const lower = typeof txHash === 'string' ? txHash.toLowerCase() : '';
  if (!TX_HASH.test(lower))
    throw new RangeError(`A transaction hash is 0x and 64 hex characters, not ${JSON.stringify(txHash)}.`);
  return lower;
}

/**
 * The chains a service sells keys on: `GET {api}/pricing`'s `chains`.
 *
 * @throws OperationError for a bad URL; AnchorServiceError for an error or a malformed answer
 */
export async function pricingChains(apiUrl: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<PricingChain[]> {
  const base = checkApiUrl(apiUrl, false);
  const { status, body } = await serviceGet(base, '/pricing', timeoutMs);
  if (!isObject(body) || !Array.isArray(body['chains']))
    throw unexpected(status, 'to GET /pricing has no list of chains: it is not a service that sells keys on chain');
  return body['chains'].map((entry, index) => {
    const where = `/chains/${index}`;
    if (!isObject(entry)) throw unexpected(status, `at ${where} is not an object`);
    const { network, chain_id: chainId, token, decimals, treasury, development, tiers } = entry;
    if (typeof network !== 'string' || network.length === 0 || network.length > 64)
      throw unexpected(status, `at ${where}/network is not a network name`);
    if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId < 1)
      throw unexpected(status, `at ${where}/chain_id is not a chain id`);
    if (typeof token !== 'string' || !ADDRESS.test(token))
      throw unexpected(status, `at ${where}/token is not a lowercase address`);
    if (typeof treasury !== 'string' || !ADDRESS.test(treasury))
      throw unexpected(status, `at ${where}/treasury is not a lowercase address`);
    if (decimals !== 6) throw unexpected(status, `at ${where}/decimals is not 6`);
    if (typeof development !== 'boolean') throw unexpected(status, `at ${where}/development is not true or false`);
    if (!Array.isArray(tiers)) throw unexpected(status, `at ${where}/tiers is not a list`);
    const checked: PricingChain['tiers'] = tiers.map((tier, position) => {
      const at = `${where}/tiers/${position}`;
      if (!isObject(tier)) throw unexpected(status, `at ${at} is not an object`);
      if (tier['tier'] === 'pro' || tier['tier'] === 'scale') {
        const monthly = tier['monthly_units'];
        const annual = tier['annual_units'];
        if (typeof monthly !== 'string' || !UNITS.test(monthly) || typeof annual !== 'string' || !UNITS.test(annual))
          throw unexpected(status, `at ${at} has no whole monthly_units and annual_units`);
        return { tier: tier['tier'], monthly_units: monthly, annual_units: annual };
      }
      if (tier['tier'] === 'enterprise') {
        const from = tier['annual_from_units'];
        if (typeof from !== 'string' || !UNITS.test(from))
          throw unexpected(status, `at ${at} has no whole annual_from_units`);
        return { tier: 'enterprise', annual_from_units: from, by_contact: true };
      }
      throw unexpected(status, `at ${at}/tier is not pro, scale or enterprise`);
    });
    return {
      network,
      chain_id: chainId,
      token,
      decimals: 6,
      treasury,
      development,
      tiers: checked,
    };
  });
}

/**
 * What became of a payment: `GET {api}/v1/payments/:tx`.
 *
 * @returns the answer, or undefined when the service has not seen the transaction (404)
 * @throws AnchorServiceError for another error or a malformed answer
 */
export async function paymentStatusAt(
  apiUrl: string,
  txHash: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<PaymentStatusAnswer | undefined> {
  const base = checkApiUrl(apiUrl, false);
  const hash = checkTxHash(txHash);
  let answer: { status: number; body: JsonValue | undefined };
  try {
    answer = await serviceGet(base, `/v1/payments/${hash}`, timeoutMs);
  } catch (error) {
    if (error instanceof AnchorServiceError && error.status === 404) return undefined;
    throw error;
  }
  const { status, body } = answer;
  if (!isObject(body)) throw unexpected(status, 'to GET /v1/payments/:tx is not an object');
  const delivery = body['delivery'];
  if (
    body['tx_hash'] !== hash ||
    typeof body['network'] !== 'string' ||
    !(PAYMENT_STATES as readonly JsonValue[]).includes(body['state'] ?? null) ||
    !(body['tier'] === null || typeof body['tier'] === 'string') ||
    !(body['term'] === null || (PAYMENT_TERMS as readonly JsonValue[]).includes(body['term'] ?? null)) ||
    !(
      body['expires_at'] === null ||
      (typeof body['expires_at'] === 'string' && Number.isFinite(Date.parse(body['expires_at'])))
    ) ||
    !isObject(delivery) ||
    !(delivery['channel'] === null || typeof delivery['channel'] === 'string') ||
    !(DELIVERY_STATES as readonly JsonValue[]).includes(delivery['state'] ?? null)
  )
    throw unexpected(status, `to GET /v1/payments/${hash} is not a payment's status`);
  return {
    tx_hash: hash,
    network: body['network'],
    state: body['state'] as PaymentState,
    tier: body['tier'] as string | null,
    term: body['term'] as PaymentTerm | null,
    expires_at: body['expires_at'] === null ? null : Date.parse(body['expires_at'] as string),
    delivery: { channel: delivery['channel'] as string | null, state: delivery['state'] as DeliveryState },
  };
}

/**
 * The sealed key of a did:key buyer: `GET {api}/v1/apikeys/pickup/:tx`, as the service sent it
 * (the caller checks and opens it).
 *
 * @throws AnchorServiceError 404 `not_found` (no sealed key for this transaction, yet or at all), 409 `not_sealed`
 */
export async function sealedKeyAt(apiUrl: string, txHash: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<JsonValue> {
  const base = checkApiUrl(apiUrl, false);
  const hash = checkTxHash(txHash);
  const { status, body } = await serviceGet(base, `/v1/apikeys/pickup/${hash}`, timeoutMs);
  if (body === undefined) throw unexpected(status, 'to the pickup route is not strict JSON');
  return body;
}
