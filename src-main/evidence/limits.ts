/**
 * The limits an import enforces on a zip before anything is written (PROTOCOL section 9): one
 * set for the import and the browser reference verifier, kept in src-shared/evidence/limits.ts.
 */
export * from '../../src-shared/evidence/limits';
