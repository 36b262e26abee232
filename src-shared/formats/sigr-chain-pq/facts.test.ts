import { describe, expect, it } from 'vitest';
import { fromPlain } from '../../json';
import { sigrChainFacts } from './facts';

describe('sigrChainFacts', () => {
  it('files a receipt under its run_id and issued_at, with no issuer key id', () => {
    const envelope = { object: 'sigr.chain.receipt', run_id: 'run-7', issued_at: '2026-06-01T12:00:00.000Z' };
    expect(sigrChainFacts(fromPlain({ ok: true, envelope }))).toEqual({
      receipt_id: 'run-7',
      issued_at: Date.parse('2026-06-01T12:00:00.000Z'),
      issuer_key_id: null,
    });
  });

  it('says nothing of what is not there or not a string', () => {
    expect(sigrChainFacts(fromPlain({ envelope: { run_id: 7, issued_at: 'soon' } }))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
    expect(sigrChainFacts(fromPlain({ run_id: 'top-level' })).receipt_id).toBeNull();
  });
});
