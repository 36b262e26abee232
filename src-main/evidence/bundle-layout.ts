/**
 * Where things live inside an evidence bundle (PROTOCOL section 9): one set of rules for the
 * import and the browser reference verifier, kept isomorphic in src-shared/evidence.
 */
export * from '../../src-shared/evidence/bundle-layout';
