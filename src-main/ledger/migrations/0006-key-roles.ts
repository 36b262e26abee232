/**
 * Migration 6: the roles a pinned key signs for (PROTOCOL section 0, "roles").
 *
 * - `keys.roles`: NULL for a key trusted in every role (every row written before this migration,
 *   and every pin that names no roles), else a JSON array of distinct role names from
 *   `requester`, `operator`, `service`, `auditor`, in that order (the repository writes that
 *   one spelling, so equal role sets compare equal as text). A pinned key used in a role it does
 *   not list is not `trusted` for that signature.
 * - Only trust-store rows (pinned, revoked) carry roles: advertised keys confer no trust, so a
 *   role list on them would mean nothing.
 *
 * The CHECK keeps the column's shape; which names may appear is checked by the repository
 * (SQLite allows no subquery, and so no json_each, in a CHECK).
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec(`
ALTER TABLE keys ADD COLUMN roles TEXT
  CHECK (roles IS NULL OR (status IN ('pinned', 'revoked') AND json_valid(roles)
                           AND json_type(roles) = 'array' AND json_array_length(roles) BETWEEN 1 AND 4));
`);
}

export const keyRolesMigration: Migration = { version: 6, name: 'key roles', up };
