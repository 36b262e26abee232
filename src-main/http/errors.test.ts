/**
 * The service's answer to errors that do not come from a route's own checks.
 */
import { describe, expect, it } from 'vitest';
import { describeError } from '../operations/errors';
import { StoreUnavailableError } from '../operations/service-store';
import { errorAnswer, STORE_UNAVAILABLE_MESSAGE } from './errors';

describe('errorAnswer', () => {
  it('answers the database down as 503 unavailable with Retry-After: 1, never naming the database', () => {
    const error = new StoreUnavailableError(
      'The database at db.internal:5432/evroom is unavailable: connect ECONNREFUSED 10.0.0.5:5432',
    );
    const answer = errorAnswer(error);
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ 'retry-after': '1' });
    expect(answer.body).toEqual({ error: { code: 'unavailable', message: STORE_UNAVAILABLE_MESSAGE, details: [] } });
    expect(answer.internal).toBeUndefined();
    expect(JSON.stringify(answer)).not.toMatch(/db\.internal|10\.0\.0\.5/);
  });

  it('gives every other door the code unavailable with the operator’s message (not an internal fault)', () => {
    const error = new StoreUnavailableError(
      'The database at db.internal:5432/evroom is unavailable: connect ECONNREFUSED',
    );
    expect(describeError(error)).toEqual({
      envelope: { code: 'unavailable', message: error.message, details: [] },
      kind: 'unavailable',
    });
  });
});
