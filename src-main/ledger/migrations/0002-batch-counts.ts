/**
 * Migration 2: receipt_counts is kept up to date for new rows by insertReceipts, once per batch.
 *
 * The per-row AFTER INSERT trigger of migration 1 ran four upserts for every receipt stored:
 * about 35 µs a row, a third of the cost of storing one (measured with bench/import.ts's row
 * shape). insertReceipts is the only code that inserts receipts; it now adds the counts of the
 * rows it created with one upsert per distinct (dimension, value) of the batch, in the same
 * transaction, so the counts stay exact. Deletes and report updates, which are rare, keep their
 * triggers.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec('DROP TRIGGER receipt_counts_after_insert;');
}

export const batchCountsMigration: Migration = { version: 2, name: 'batch counts', up };
