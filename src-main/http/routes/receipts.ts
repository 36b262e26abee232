/**
 * Profile receipt issuance: `POST /v1/receipt/emit?profile=` (an API key; the tenant's quota)
 * and `POST /v1/receipt/free` (no key; 100 a day per client address). PROTOCOL section 3.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  EMIT_PROFILES,
  issueProfile,
  tenantQuota,
  type EmitProfile,
  type EmitRequest,
} from '../../operations/service-issue';
import { OperationError } from '../../operations/errors';
import { readBody } from '../body';
import { HttpError } from '../errors';
import type { ServiceContext } from '../service';

/** The body of emit and of tenant receipts. */
export const EMIT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['agent_did', 'content_type'],
  properties: {
    agent_did: { type: 'string', minLength: 1, maxLength: 512, description: 'The agent DID the receipt is about' },
    content_sha256: {
      type: 'string',
      pattern: '^[0-9a-f]{64}$',
      description: 'hex SHA-256 of the content (or give input)',
    },
    input: { type: 'string', maxLength: 1_000_000, description: 'The content itself: hashed, never stored' },
    content_type: { type: 'string', minLength: 1, maxLength: 128 },
    settlement_reference: {
      type: 'object',
      additionalProperties: false,
      required: ['rail', 'chain_id', 'asset'],
      properties: {
        rail: { type: 'string', minLength: 1, maxLength: 64 },
        chain_id: { type: 'integer', minimum: 0, maximum: 9007199254740991 },
        asset: { type: 'string', minLength: 1, maxLength: 64 },
      },
    },
    sealed: { type: 'boolean' },
    reputation_tier: { type: 'string', minLength: 1, maxLength: 64 },
  },
  oneOf: [{ required: ['content_sha256'] }, { required: ['input'] }],
} as const;

const FREE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['input', 'purpose'],
  properties: {
    input: { type: 'string', maxLength: 1_000_000, description: 'The content: hashed into the receipt, never stored' },
    purpose: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'What the receipt is for (checked, not part of a nano receipt)',
    },
  },
} as const;

/** The agent a free receipt names: the free route has no caller identity. */
export const FREE_AGENT_DID = 'did:svc:evroom:free';

const PROFILE_QUERY = {
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
      details: [{ path: '/profile', message: 'unknown profile' }],
    });
  }
  return profile as EmitProfile;
}

/** Registers emit and free. */
export function registerReceiptRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.post(
    '/v1/receipt/emit',
    {
      schema: {
        summary: 'Issue a profile receipt (nano, standard or pq)',
        tags: ['receipts'],
        querystring: PROFILE_QUERY,
        body: EMIT_BODY_SCHEMA,
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = context.requireCaller(request);
      const profile = requestedProfile(request);
      const body = readBody<EmitRequest>(request, EMIT_BODY_SCHEMA);
      const now = context.now();
      try {
        const issued = await issueProfile(context.workspace, context.signer, profile, body, {
          now,
          ref: `tenant:${caller.tenant.id}`,
          quota: tenantQuota(caller.tenant, now, context),
          ...context.issueWorkers(request),
        });
        return reply.code(201).send(issued.document);
      } catch (error) {
        throw asQuotaError(error, now);
      }
    },
  );

  app.post(
    '/v1/receipt/free',
    {
      schema: {
        summary: 'Issue a free nano receipt (100 a day per client address)',
        tags: ['receipts'],
        body: FREE_BODY_SCHEMA,
      },
    },
    async (request, reply) => {
      const body = readBody<{ input: string; purpose: string }>(request, FREE_BODY_SCHEMA);
      const now = context.now();
      try {
        const issued = await issueProfile(
          context.workspace,
          context.signer,
          'nano',
          { agent_did: FREE_AGENT_DID, input: body.input, content_type: 'text/plain' },
          {
            now,
            ref: 'public',
            quota: { subject: `ip:${request.ip}`, period: now.toISOString().slice(0, 10), limit: context.freePerDay },
            ...context.issueWorkers(request),
          },
        );
        return reply.code(201).send(issued.document);
      } catch (error) {
        throw asQuotaError(error, now);
      }
    },
  );
}
