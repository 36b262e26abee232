/**
 * Settings: the chain the Anchors view asks for steps 2-3 of a check (a JSON-RPC URL) and the
 * confirmations step 3 requires. Checked here with the contract's own rules (`isRpcUrl`, 1 to
 * MAX_CONFIRMATIONS) so the user sees what is wrong before saving; `settings.set` checks again.
 */
import { useState, type FormEvent } from 'react';
import { MAX_CONFIRMATIONS, MAX_RPC_URL_LENGTH, isRpcUrl, type ChainSettings } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { Button, ErrorNotice, formatCount } from './ui';

function parseRpc(text: string): string | null | { error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!isRpcUrl(trimmed))
    return {
      error: `The chain RPC URL must start with http:// or https://, name a host (and a port from 1 to 65535 if any), have no spaces and be at most ${formatCount(MAX_RPC_URL_LENGTH)} characters.`,
    };
  return trimmed;
}

function parseConfirmations(text: string): number | { error: string } {
  const trimmed = text.trim().replace(/[,_\s]/g, '');
  if (!/^\d+$/.test(trimmed))
    return { error: `Confirmations must be a whole number from 1 to ${formatCount(MAX_CONFIRMATIONS)}.` };
  const value = Number(trimmed);
  if (value < 1 || value > MAX_CONFIRMATIONS)
    return { error: `Confirmations must be from 1 to ${formatCount(MAX_CONFIRMATIONS)}.` };
  return value;
}

/** The chain settings form. */
export function ChainSettingsForm({ initial }: { initial: ChainSettings }) {
  const [saved, setSaved] = useState<ChainSettings>(initial);
  const [rpcText, setRpcText] = useState(initial.rpc_url ?? '');
  const [confirmationsText, setConfirmationsText] = useState(String(initial.confirmations));
  const [saving, setSaving] = useState(false);
  const [touched, setTouched] = useState(false);
  const [saveError, setSaveError] = useState<string | undefined>(undefined);
  const [savedNow, setSavedNow] = useState(false);

  const rpc = parseRpc(rpcText);
  const confirmations = parseConfirmations(confirmationsText);
  const rpcProblem = typeof rpc === 'object' && rpc !== null ? rpc.error : undefined;
  const confirmationsProblem = typeof confirmations === 'object' ? confirmations.error : undefined;
  const valid = rpcProblem === undefined && confirmationsProblem === undefined;
  const dirty = valid ? rpc !== saved.rpc_url || confirmations !== saved.confirmations : true;

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setTouched(true);
    if (!valid) return;
    setSaving(true);
    setSaveError(undefined);
    try {
      const answer = await api['settings.set']({
        chain: { rpc_url: rpc as string | null, confirmations: confirmations as number },
      });
      setSaved(answer.chain);
      setRpcText(answer.chain.rpc_url ?? '');
      setConfirmationsText(String(answer.chain.confirmations));
      setSavedNow(true);
      setTouched(false);
    } catch (reason) {
      setSaveError(errorMessage(reason));
    } finally {
      setSaving(false);
    }
  };

  const showRpc = rpcProblem !== undefined && (touched || rpcText !== (saved.rpc_url ?? ''));
  const showConfirmations =
    confirmationsProblem !== undefined && (touched || confirmationsText !== String(saved.confirmations));
  return (
    <>
      <p className="muted settings-intro">
        “Check on chain” in the Anchors view asks this chain whether an anchor’s transaction carries its Merkle root
        (step 2) and is deep enough (step 3). The app calls it only when you press that button. Leave the URL empty to
        check offline only: steps 2 and 3 then stay unchecked, never passed.
      </p>
      <form className="settings-limits" onSubmit={(event) => void submit(event)} noValidate aria-label="Chain settings">
        <div className="settings-limit">
          <label htmlFor="chain-rpc" className="settings-limit-label">
            Chain RPC URL
          </label>
          <div className="settings-limit-input">
            <input
              id="chain-rpc"
              className="settings-rpc"
              type="url"
              autoComplete="off"
              spellCheck={false}
              placeholder="http://127.0.0.1:8545"
              value={rpcText}
              aria-invalid={showRpc ? true : undefined}
              aria-describedby={`chain-rpc-help${showRpc ? ' chain-rpc-error' : ''}`}
              onChange={(event) => {
                setRpcText(event.target.value);
                setSavedNow(false);
              }}
            />
          </div>
          <p id="chain-rpc-help" className="settings-help">
            The JSON-RPC of the EVM chain the anchors were posted to (the service’s embedded chain, anvil, or e.g.
            Base). Empty: none.
          </p>
          {showRpc && (
            <p id="chain-rpc-error" className="settings-error">
              <span aria-hidden="true">⚠ </span>
              {rpcProblem}
            </p>
          )}
        </div>
        <div className="settings-limit">
          <label htmlFor="chain-confirmations" className="settings-limit-label">
            Confirmations
          </label>
          <div className="settings-limit-input">
            <input
              id="chain-confirmations"
              inputMode="numeric"
              autoComplete="off"
              value={confirmationsText}
              aria-invalid={showConfirmations ? true : undefined}
              aria-describedby={`chain-confirmations-help${showConfirmations ? ' chain-confirmations-error' : ''}`}
              onChange={(event) => {
                setConfirmationsText(event.target.value);
                setSavedNow(false);
              }}
            />
            <span className="settings-unit">blocks</span>
          </div>
          <p id="chain-confirmations-help" className="settings-help">
            Step 3 passes when the transaction’s block and the blocks after it number at least this many. Allowed: 1 to{' '}
            {formatCount(MAX_CONFIRMATIONS)}.
          </p>
          {showConfirmations && (
            <p id="chain-confirmations-error" className="settings-error">
              <span aria-hidden="true">⚠ </span>
              {confirmationsProblem}
            </p>
          )}
        </div>
        <div className="settings-save">
          <Button type="submit" variant="primary" disabled={saving || !dirty}>
            {saving ? 'Saving…' : 'Save chain settings'}
          </Button>
          <span className="settings-status" role="status" aria-live="polite">
            {savedNow && !dirty
              ? 'Chain settings saved.'
              : dirty
                ? valid
                  ? 'Unsaved changes.'
                  : 'Fix the fields marked above to save.'
                : ''}
          </span>
        </div>
        {saveError && (
          <ErrorNotice
            title="The chain settings were not saved"
            message={saveError}
            hint="Nothing changed; the previous settings still apply."
          />
        )}
      </form>
    </>
  );
}
