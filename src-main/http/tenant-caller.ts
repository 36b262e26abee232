/**
 * What the tenant routes share (tenants.ts, tlog.ts): the path parameter `:id` and the rule that
 * a tenant's routes answer only that tenant's API keys.
 */
import type { FastifyRequest } from 'fastify';
import { TENANT_ID_PATTERN } from '../../src-shared/api/vocabulary';
import type { Caller } from '../operations/service-admin';
import type { ServiceContext } from './context';
import { HttpError } from './errors';

/** The schema of a tenant route's path parameters. */
export const TENANT_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: TENANT_ID_PATTERN.source } },
} as const;

/**
 * The caller, when its key belongs to the tenant of the path.
 *
 * @throws HttpError 401 without a valid key, 403 for a key of another tenant
 */
export async function tenantCaller(context: ServiceContext, request: FastifyRequest): Promise<Caller> {
  const caller = await context.requireCaller(request);
  const { id } = request.params as { id: string };
  if (caller.tenant.id !== id) throw new HttpError(403, 'forbidden', 'This API key belongs to another tenant.');
  return caller;
}
