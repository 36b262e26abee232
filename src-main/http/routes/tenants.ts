/**
 * Tenant routes (PROTOCOL section 9): `POST /tenants/:id/receipts` issues a profile receipt
 * against the tenant's quota, and `GET /tenants/:id/evidence[?since=TS]` streams the tenant's
 * evidence bundle (the signed zip `evroom import` reads). A key of another tenant is 403.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TENANT_ID_PATTERN } from '../../../src-shared/api/vocabulary';
import { isTimestamp, timestampToMillis } from '../../../src-shared/verify/timestamp';
import { anchorIssuedReceipt } from '../../operations/anchor-submit';
import { exportEvidence } from '../../operations/evidence';
import type { Caller } from '../../operations/service-admin';
import { issueProfile, tenantQuota, type EmitRequest } from '../../operations/service-issue';
import { readBody } from '../body';
import { serviceContext, type ServiceContext } from '../context';
import { asQuotaError, EMIT_BODY_SCHEMA, PROFILE_QUERY, requestedProfile } from '../emit-request';
import { HttpError } from '../errors';

const TENANT_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: TENANT_ID_PATTERN.source } },
} as const;

/** The caller, when its key belongs to the tenant of the path; 403 otherwise. */
function tenantCaller(context: ServiceContext, request: FastifyRequest): Caller {
  const caller = context.requireCaller(request);
  const { id } = request.params as { id: string };
  if (caller.tenant.id !== id) throw new HttpError(403, 'forbidden', 'This API key belongs to another tenant.');
  return caller;
}

/** The tenant routes, as a plugin. */
export async function tenantRoutes(app: FastifyInstance): Promise<void> {
  const context = serviceContext(app);
  app.post(
    '/tenants/:id/receipts',
    {
      schema: {
        summary: 'Issue a receipt for the tenant (body as emit; ?profile=)',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        querystring: PROFILE_QUERY,
        body: EMIT_BODY_SCHEMA,
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = tenantCaller(context, request);
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
        // Scale and enterprise receipts are queued for anchoring (null without anchoring or on other tiers).
        return reply.code(201).send({
          receipt: issued.document,
          anchor: anchorIssuedReceipt(context.anchor, caller, issued.receipt_sha256),
        });
      } catch (error) {
        throw asQuotaError(error, now);
      }
    },
  );

  app.get(
    '/tenants/:id/evidence',
    {
      schema: {
        summary: 'The tenant’s evidence bundle (application/zip), receipts issued since TS when given',
        tags: ['tenants'],
        params: TENANT_PARAMS,
        querystring: { type: 'object', additionalProperties: false, properties: { since: { type: 'string' } } },
        security: [{ apiKey: [] }],
      },
    },
    async (request, reply) => {
      const caller = tenantCaller(context, request);
      const since = (request.query as { since?: string }).since;
      // A TS names years 0000-9999; the ledger counts from the Unix epoch, so earlier is refused here.
      if (since !== undefined && !(isTimestamp(since) && timestampToMillis(since) >= 0)) {
        throw new HttpError(
          400,
          'invalid_request',
          'since must be a TS (YYYY-MM-DDThh:mm:ss[.f]Z) from 1970-01-01T00:00:00Z on.',
          { details: [{ path: '?since', message: isTimestamp(since) ? 'is before 1970' : 'is not a TS' }] },
        );
      }
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-evidence-'));
      const file = path.join(folder, `${caller.tenant.id}.zip`);
      try {
        await exportEvidence(context.workspace, {
          out: file,
          tenantId: caller.tenant.id,
          signingKey: context.signer,
          filters: {
            source: { kind: 'service', ref: `tenant:${caller.tenant.id}` },
            ...(since === undefined ? {} : { from: timestampToMillis(since) }),
          },
          now: context.now(),
          // Off the HTTP thread: the zip writer moves one entry per turn of the event loop, and
          // this loop's turns are long while requests keep coming.
          worker: true,
          onWorkerError: (error) =>
            request.log.error({ err: error }, 'export worker failed; writing the evidence on the HTTP thread'),
        });
      } catch (error) {
        fs.rmSync(folder, { recursive: true, force: true });
        throw error;
      }
      const stream = fs.createReadStream(file);
      // The temporary copy goes once it has been sent (or the client went away).
      stream.on('close', () => fs.rmSync(folder, { recursive: true, force: true }));
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="evidence-${caller.tenant.id}.zip"`)
        .send(stream);
    },
  );
}
