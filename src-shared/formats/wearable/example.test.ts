import { describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { ed25519KeyEntry } from '../../verify/keys';
import { verifyDocument } from '../../verify/verify';
import {
  WEARABLE_EXAMPLE_KEY_ID,
  WEARABLE_EXAMPLE_TS,
  wearableExampleDeviceSeed,
  wearableExampleServiceSeed,
  wearableWorkedExample,
} from './example';

// These literals are quoted by docs/protocol.md: if the example or the protocol changes, this test
// fails first and the docs must be updated with it.
const CANONICAL_MESSAGE =
  '{"calibration_ref":"cal-2026-01-band2-0042",' +
  '"device_id_commitment_sha256":"d0d3bbe114c0328870d8c4d6cde361785c34f4fca0c7d1bac2c02f133be880f1",' +
  '"device_model":"Evidence Room Reference Band 2","domain":"ppr.wearable.observation/r2.0.0",' +
  '"firmware_sha256":"438328dc6c7c41c05ec6ed65c159717d8d62bc5765ed9b7edeba7f736c89ff3a",' +
  '"metric_type":"heart_rate","observation_nonce":"nonce-7f3a9c21e4b04d58",' +
  '"observed_at":"2026-03-14T09:26:53.589793238Z","prior_sequence_no":41,"sequence_no":42,' +
  '"subject_assignment_sha256":"a3bcbba7d2e91ab3e8776a15a2b1e27cbf50f8cda9b88e2f40e94ff80f41ea61",' +
  '"unit":"/min","value":72}';
const OBSERVATION_SHA256 = '58ab239dc17880b436d3424c2d193214de4938d210477b95bd147b48166aecdb';
const PAYLOAD_SHA256 = '205ac6ae8741cad308f03ba1e43f84de7d2d9b150c6ba873943deacb38ff65b2';
const DEVICE_PUBLIC_KEY = 'd759793bbc13a2819a827c76adb6fba8a49aee007f49f2d0992d99b825ad2c48';
const DEVICE_SIGNATURE = 'yMWsTziSYzQvl6q808fDvFkuZSDy4zcsDtkmYyLBWidV1m7ai_IRUbgKwo2RKXqa36ZKdGfMnPsy_oBdi7zwDw';
const SERVICE_SIGNATURE = 'FT6o26U002GEuU5gBAIwjKBabhtszq1B7G72ohMcCC_WscwE_WSH7lWMoINkqW2szIGmF7vZvEO-PJHpeqWuBQ';

const crypto = createPortableProvider();

describe('the wearable worked example', () => {
  const example = wearableWorkedExample(crypto);

  it('has the canonical message and hashes the docs quote', () => {
    expect(example.canonicalMessage).toBe(CANONICAL_MESSAGE);
    expect(example.observationSha256).toBe(OBSERVATION_SHA256);
    expect(example.payloadSha256).toBe(PAYLOAD_SHA256);
    expect(example.callerFields.device_public_key).toBe(DEVICE_PUBLIC_KEY);
    expect(example.callerFields.device_signature).toBe(DEVICE_SIGNATURE);
    expect(example.receipt.sig_b64u).toBe(SERVICE_SIGNATURE);
  });

  it('the pinned hashes are what they claim to be', () => {
    expect(hexEncode(crypto.sha256(utf8Encode(CANONICAL_MESSAGE)))).toBe(OBSERVATION_SHA256);
    expect(example.receipt.payload_sha256).toBe(PAYLOAD_SHA256);
    expect(example.receipt.signed_body.observation_sha256).toBe(OBSERVATION_SHA256);
    expect(b64uEncode(crypto.ed25519Sign(utf8Encode(CANONICAL_MESSAGE), wearableExampleDeviceSeed()))).toBe(
      DEVICE_SIGNATURE,
    );
  });

  it('shows a complete provenance, nanoseconds truncated in the clock lag', () => {
    expect(example.receipt).toMatchObject({
      receipt_id: `r_ppr.wearable_${WEARABLE_EXAMPLE_TS}_58ab239dc178`,
      key_id: WEARABLE_EXAMPLE_KEY_ID,
      ts: 1_773_480_420,
      signed_body: {
        recorded_at: '2026-03-14T09:27:00.000Z',
        clock_lag_ms: 513,
        metric_unit_relation: 'matched',
        signature_relation: 'valid',
        sequence_relation: 'contiguous',
        calibration_relation: 'resolved',
        assignment_relation: 'resolved',
        elements: [],
        outcome: 'measurement_provenance_complete',
      },
    });
  });

  it('verifies as PASS with the example service key', () => {
    const key = ed25519KeyEntry(crypto, WEARABLE_EXAMPLE_KEY_ID, wearableExampleServiceSeed());
    const report = verifyDocument(JSON.stringify(example.receipt), createVerifyContext(crypto, { advertised: [key] }));
    expect(report.status).toBe('PASS');
  });

  it('is deterministic', () => {
    expect(wearableWorkedExample(crypto)).toEqual(example);
  });
});
