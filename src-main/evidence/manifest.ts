/**
 * The bundle manifest and its signature: one set of rules for the import and the browser
 * reference verifier, kept isomorphic in src-shared/evidence/manifest.ts.
 */
export * from '../../src-shared/evidence/manifest';
