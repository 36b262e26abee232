/**
 * The PostgreSQL schema's migrations, in order (pg-migrate.ts runs them). One module per
 * migration, numbered; never edit one that has shipped, add the next.
 */

import { migration0001 } from './0001-base';
import { migration0002 } from './0002-identity';
import { issuanceMigration } from './0003-issuance';
import { anchoringMigration } from './0004-anchoring';
import { paymentsMigration } from './0005-payments';

/** One migration: its number, its name and its SQL (several statements). */
export interface PgMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Every migration, ascending by version (each owner adds its line). */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  migration0001,
  migration0002,
  issuanceMigration,
  anchoringMigration,
  paymentsMigration,
];
