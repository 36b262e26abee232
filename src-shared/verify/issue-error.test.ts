import { describe, expect, it } from 'vitest';
import { IssueInputError } from './issue-error';

describe('IssueInputError', () => {
  it('carries a stable code, a JSON Pointer and a message, under its own name', () => {
    const error = new IssueInputError('unknown_member', '/note', 'unknown member "note"');
    expect(error).toBeInstanceOf(Error);
    expect({ name: error.name, code: error.code, path: error.path, message: error.message }).toEqual({
      name: 'IssueInputError',
      code: 'unknown_member',
      path: '/note',
      message: 'unknown member "note"',
    });
  });
});
