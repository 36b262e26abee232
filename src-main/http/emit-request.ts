/**
 * What the routes that issue profile receipts share (emit and tenant receipts, PROTOCOL sections
 * 3 and 9): the body's schema, the `?profile=` parameter, and a used-up quota as 429.
 *
 * The body's schema takes only what the signer takes: an agent_did is a DID of at most 256
 * characters and a content_type a media type, with the patterns of the published profile
 * schemas (resources/schemas), so a request the signer would refuse is refused here, with the
 * pointer of the member, before anything is signed or counted.
 */
import type { FastifyRequest } from 'fastify';
import standardSchema from '../../resources/schemas/profile-standard.schema.json';
import { EMIT_PROFILES, type EmitProfile } from '../operations/service-issue';
import { OperationError } from '../operations/errors';
import { HttpError } from './errors';

/** The body of emit and of tenant receipts. */
export const EMIT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['agent_did', 'content_type'],
  properties: {
    agent_did: {
      type: 'string',
      minLength: 1,
      maxLength: standardSchema.$defs.did.maxLength,
      pattern: standardSchema.$defs.did.pattern,
      description: 'The agent DID the receipt is about: did:<method>:<id>, at most 256 characters',
    },
    content_sha256: {
      type: 'string',
      pattern: '^[0-9a-f]{64}$',
      description: 'hex SHA-256 of the content (or give input)',
    },
    input: { type: 'string', maxLength: 1_000_000, description: 'The content itself: hashed, never stored' },
    content_type: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: standardSchema.$defs.contentType.pattern,
      description: 'A media type: type/subtype[;parameters]',
    },
    settlement_reference: {
      type: 'object',
      additionalProperties: false,
      required: ['rail', 'chain_id', 'asset'],
      properties: {
        rail: { type: 'string', minLength: 1, maxLength: 64 },
        chain_id: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
        asset: { type: 'string', minLength: 1, maxLength: 64 },
      },
    },
    sealed: { type: 'boolean' },
    reputation_tier: { type: 'string', minLength: 1, maxLength: 64 },
  },
  oneOf: [{ required: ['content_sha256'] }, { required: ['input'] }],
} as const;

/** The query of emit and of tenant receipts. */
export const PROFILE_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { profile: { type: 'string', enum: [...EMIT_PROFILES], default: 'standard' } },
} as const;

/** Seconds until the quota period after `now` begins (next UTC midnight, or the next month). */
export function secondsUntilNextPeriod(now: Date, period: string): number {
  const next =
    period.length === 10
      ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)
      : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** A used-up quota as 429 with Retry-After (PROTOCOL section 10); other errors pass through. */
export function asQuotaError(error: unknown, now: Date): unknown {
  if (error instanceof OperationError && error.code === 'quota_exceeded') {
    const period = String(error.facts['period'] ?? '');
    return new HttpError(429, 'quota_exceeded', error.message, {
      headers: { 'retry-after': String(secondsUntilNextPeriod(now, period)) },
    });
  }
  return error;
}

/** The profile a request asks for (`?profile=`, default standard). */
export function requestedProfile(request: FastifyRequest): EmitProfile {
  const profile = (request.query as { profile?: string }).profile ?? 'standard';
  if (!(EMIT_PROFILES as readonly string[]).includes(profile)) {
    throw new HttpError(400, 'invalid_request', `profile must be one of ${EMIT_PROFILES.join(', ')}.`, {
      details: [{ path: '?profile', message: 'is not a profile' }],
    });
  }
  return profile as EmitProfile;
}
