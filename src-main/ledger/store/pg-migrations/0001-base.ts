/**
 * PostgreSQL migration 1: the service's nodes, its leases and the registry of its keys
 * (cluster.ts; docs/deploy.md "The PostgreSQL store").
 */
import type { PgMigration } from './index';

export const migration0001: PgMigration = {
  version: 1,
  name: 'base',
  sql: `
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  version TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
);
CREATE INDEX nodes_heartbeat ON nodes (heartbeat_at);

CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  fence BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE service_keys (
  role TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  registered_at BIGINT NOT NULL,
  registered_by TEXT NOT NULL
);
`,
};
