/**
 * Profile receipt issuance: `POST /v1/receipt/emit?profile=` (an API key; the tenant's quota)
 * and `POST /v1/receipt/free` (no key; 100 a day per client address). PROTOCOL section 3.
 */
import type { FastifyInstance } from 'fastify';
import { issueProfile, tenantQuota, type EmitRequest } from '../../operations/service-issue';
import { readBody } from '../body';
import { serviceContext } from '../context';
import { asQuotaError, EMIT_BODY_SCHEMA, PROFILE_QUERY, requestedProfile } from '../emit-request';

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

/** Emit and free, as a plugin. */
export async function receiptRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
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
      const caller = await context.requireCaller(request);
      const profile = requestedProfile(request);
      const body = readBody<EmitRequest>(request, EMIT_BODY_SCHEMA);
      const now = context.now();
      try {
        const issued = await issueProfile(context.workspace, context.signer, profile, body, {
          store: context.store,
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
            store: context.store,
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
