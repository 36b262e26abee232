/**
 * The shape of one numbered migration.
 */
import type { WritableDB } from '../database';

/**
 * One step of the schema.
 *
 * Migration N moves a database from `user_version` N-1 to N. The runner calls `up` inside one
 * transaction together with the `user_version` update, so a failed step leaves the file as it
 * was. A migration never changes once released: later changes are new migrations.
 */
export interface Migration {
  /** 1, 2, 3, ... with no gaps; equal to the number in the file name. */
  readonly version: number;
  /** A few words for error messages, e.g. `initial`. */
  readonly name: string;
  /** Apply the step. Throwing rolls the whole step back. */
  up(database: WritableDB): void;
}
