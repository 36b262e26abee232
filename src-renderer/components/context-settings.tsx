/**
 * Settings for air-gapped anchor checks (docs/anchoring.md, "Air-gapped verification"):
 * - Context packs: import a pack made online (`evroom context export`), see what it carries
 *   (chain, head, when and from which RPC it was made, who signed it, the anchors and headers),
 *   remove it. A refused pack says why and stores nothing.
 * - Pinned block hashes: a block hash taken from a trusted source (a block explorer, a colleague
 *   online, a printed bulletin), which upgrades a pack's head from claimed to checked when a
 *   header of the pack has that number and hash.
 *
 * In local web mode a pack is uploaded as raw bytes (`uploadFile`); in Electron it travels as
 * base64url (`context.import`). Each input is checked here with the contract's rules before it
 * is sent; the app API checks again.
 */
import { useRef, useState, type FormEvent } from 'react';
import { BLOCK_HASH, MAX_PIN_NOTE, type ContextPackSummary, type PinnedBlock } from '../../src-shared/api/contract';
import { api, errorMessage, uploadFile, useApi } from '../api';
import { encodeBase64Url } from './bundles-import';
import { Button, ConfirmDialog, ErrorNotice, Loading, TableScroll, formatCount, formatInstant } from './ui';

/** The largest pack the app takes (the contract's MAX_CONTEXT_PACK_B64 as bytes). */
const MAX_PACK_BYTES = 48 * 1024 * 1024;

/** A did:key shown short; the full key is in the title. */
function shortKey(key: string): string {
  return key.length > 28 ? `${key.slice(0, 16)}…${key.slice(-6)}` : key;
}

/** A hash shown short. */
function shortHash(hash: string): string {
  return hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : hash;
}

/** One imported pack: what it carries and who made it. */
function PackCard({ pack, onRemove }: { pack: ContextPackSummary; onRemove: (pack: ContextPackSummary) => void }) {
  return (
    <li className="context-pack" data-testid="context-pack" data-pack-id={pack.pack_id}>
      <div className="context-pack-head">
        <span className="code context-pack-id">{pack.pack_id}</span>
        <button
          type="button"
          className="button button-ghost"
          onClick={() => onRemove(pack)}
          aria-label={`Remove context pack ${pack.pack_id}`}
        >
          Remove
        </button>
      </div>
      <dl className="fields context-pack-fields">
        <div className="field-row">
          <dt>Chain</dt>
          <dd>chain id {pack.chain_id}</dd>
        </div>
        <div className="field-row">
          <dt>Head</dt>
          <dd>
            block {formatCount(pack.head.number)}{' '}
            <span className="code" title={pack.head.hash}>
              {shortHash(pack.head.hash)}
            </span>
          </dd>
        </div>
        <div className="field-row">
          <dt>Made at</dt>
          <dd>{pack.made_at} (as its signer says)</dd>
        </div>
        <div className="field-row">
          <dt>Gathered from</dt>
          <dd className="code">{pack.rpc}</dd>
        </div>
        <div className="field-row">
          <dt>Signed by</dt>
          <dd>
            <span className="code" title={pack.signer}>
              {shortKey(pack.signer)}
            </span>{' '}
            (signature verified)
          </dd>
        </div>
        <div className="field-row">
          <dt>Carries</dt>
          <dd>
            {formatCount(pack.anchors)} anchor transaction{pack.anchors === 1 ? '' : 's'}, headers{' '}
            {formatCount(pack.headers.from)} to {formatCount(pack.headers.to)}
            {pack.checkpoints > 0 &&
              `, ${formatCount(pack.checkpoints)} log checkpoint${pack.checkpoints === 1 ? '' : 's'} (recorded in Logs)`}
          </dd>
        </div>
        <div className="field-row">
          <dt>Imported</dt>
          <dd>{formatInstant(pack.imported_at)}</dd>
        </div>
      </dl>
    </li>
  );
}

/** Context packs: import, list, remove. */
export function ContextPacksSettings() {
  const { data, error, reload } = useApi('context.list', undefined);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<
    { kind: 'imported'; pack: ContextPackSummary } | { kind: 'refused'; name: string; message: string } | undefined
  >(undefined);
  const [removing, setRemoving] = useState<ContextPackSummary | undefined>(undefined);
  const [removeError, setRemoveError] = useState<string | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);

  const importFile = async (file: File): Promise<void> => {
    setOutcome(undefined);
    if (file.size === 0) {
      setOutcome({ kind: 'refused', name: file.name, message: 'The file is empty, so it cannot be a context pack.' });
      return;
    }
    if (file.size > MAX_PACK_BYTES) {
      setOutcome({
        kind: 'refused',
        name: file.name,
        message: `The file is larger than ${formatCount(MAX_PACK_BYTES / 1024 / 1024)} MB, the most a context pack may be.`,
      });
      return;
    }
    setBusy(true);
    try {
      const pack = uploadFile
        ? await uploadFile('context.import', file, file.name)
        : await api['context.import']({
            name: file.name,
            data: await encodeBase64Url(new Uint8Array(await file.arrayBuffer())),
          });
      setOutcome({ kind: 'imported', pack });
      reload();
    } catch (reason) {
      setOutcome({ kind: 'refused', name: file.name, message: errorMessage(reason) });
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  const remove = async (pack: ContextPackSummary): Promise<void> => {
    setRemoveError(undefined);
    try {
      await api['context.remove']({ pack_id: pack.pack_id });
      setOutcome(undefined);
      reload();
    } catch (reason) {
      setRemoveError(errorMessage(reason));
    } finally {
      setRemoving(undefined);
    }
  };

  return (
    <>
      <p className="muted settings-intro">
        On an air-gapped workstation the chain cannot be asked. A context pack, made online with{' '}
        <code className="code">evroom context export</code>, carries the chain’s evidence for anchor transactions
        (headers, transactions, receipts and their proofs) signed by the workstation that gathered it. When “Check on
        chain” gets no answer from the chain, steps 2 and 3 are answered from the imported packs: the result is{' '}
        <strong>verified with context</strong>, never “verified on chain”. Every header, proof and the signature are
        checked here; the pack’s head stays <em>claimed</em> until a pinned block hash below checks it.
      </p>
      <div className="context-import">
        <label htmlFor="context-pack-file" className="settings-limit-label">
          Import a context pack (.zip)
        </label>
        <input
          id="context-pack-file"
          ref={input}
          type="file"
          accept=".zip,application/zip"
          disabled={busy}
          aria-describedby="context-pack-help"
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) void importFile(file);
          }}
        />
        <p id="context-pack-help" className="settings-help">
          The pack is checked whole before it is kept: its signature, every file’s digest and the chain of headers. A
          pack that fails any check is refused and nothing is stored.
        </p>
      </div>
      <div role="status" aria-live="polite" className="context-status">
        {busy && <Loading label="Checking the pack…" />}
        {outcome?.kind === 'imported' && (
          <p className="notice notice-info" data-testid="context-imported">
            Imported context pack <span className="code">{outcome.pack.pack_id}</span>: chain id {outcome.pack.chain_id}
            , head block {formatCount(outcome.pack.head.number)}, {formatCount(outcome.pack.anchors)} anchor transaction
            {outcome.pack.anchors === 1 ? '' : 's'}.
          </p>
        )}
        {outcome?.kind === 'imported' && outcome.pack.log_split_views !== undefined && (
          <p className="notice notice-error" role="alert" data-testid="context-split-view">
            Split view: {formatCount(outcome.pack.log_split_views)} of the pack’s log checkpoint
            {outcome.pack.log_split_views === 1 ? '' : 's'} disagree with one seen before. See Logs.
          </p>
        )}
      </div>
      {outcome?.kind === 'refused' && (
        <ErrorNotice
          title={`The context pack “${outcome.name}” was refused`}
          message={outcome.message}
          hint="Nothing was stored. Make the pack again online (evroom context export) and carry it over unchanged."
        />
      )}
      {error && <ErrorNotice title="The context packs could not be listed" message={error} />}
      {!data && !error && <Loading />}
      {data && data.length === 0 && (
        <p className="muted" data-testid="context-none">
          No context pack is imported: on this workstation steps 2 and 3 are checked only against a live chain.
        </p>
      )}
      {data && data.length > 0 && (
        <ul className="context-packs" aria-label="Imported context packs">
          {data.map((pack) => (
            <PackCard key={pack.pack_id} pack={pack} onRemove={setRemoving} />
          ))}
        </ul>
      )}
      {removeError && <ErrorNotice title="The pack was not removed" message={removeError} />}
      {removing && (
        <ConfirmDialog
          title="Remove this context pack?"
          confirmLabel="Remove pack"
          danger
          onConfirm={() => void remove(removing)}
          onCancel={() => setRemoving(undefined)}
        >
          <p>
            Context pack <span className="code">{removing.pack_id}</span> (head block{' '}
            {formatCount(removing.head.number)}) is deleted from the data folder. Checks already recorded from it keep
            what they found; new checks will not use it.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

type PinField = 'chain_id' | 'number' | 'hash' | 'note';

/** Checks the pin form as typed; returns the pin or each field's problem. */
function parsePin(drafts: Record<PinField, string>): {
  pin?: { chain_id: number; number: number; hash: string; note?: string };
  problems: Partial<Record<PinField, string>>;
} {
  const problems: Partial<Record<PinField, string>> = {};
  const chain = drafts.chain_id.trim();
  if (!/^\d+$/.test(chain) || Number(chain) < 1 || !Number.isSafeInteger(Number(chain)))
    problems.chain_id = 'Chain id must be a whole number from 1 (e.g. 1 for Ethereum mainnet, 31337 for anvil).';
  const number = drafts.number.trim().replace(/[,_\s]/g, '');
  if (!/^\d+$/.test(number) || !Number.isSafeInteger(Number(number)))
    problems.number = 'Block number must be a whole number from 0.';
  const hash = drafts.hash.trim();
  if (!BLOCK_HASH.test(hash))
    problems.hash = `Block hash must be 0x and 64 hex digits (it has ${hash.replace(/^0x/i, '').length} characters after 0x).`;
  const note = drafts.note.trim();
  if (note.length > MAX_PIN_NOTE) problems.note = `The note must be at most ${MAX_PIN_NOTE} characters.`;
  if (Object.keys(problems).length > 0) return { problems };
  const pin = { chain_id: Number(chain), number: Number(number), hash: hash.toLowerCase() };
  return { pin: note === '' ? pin : { ...pin, note }, problems };
}

const PIN_LABELS: Record<PinField, { label: string; help: string; placeholder: string }> = {
  chain_id: { label: 'Chain id', help: 'The chain the block is on.', placeholder: '31337' },
  number: { label: 'Block number', help: 'The block’s height.', placeholder: '1234' },
  hash: {
    label: 'Block hash',
    help: 'From a source you trust: a block explorer, a colleague online, a printed bulletin.',
    placeholder: '0x…',
  },
  note: { label: 'Note (optional)', help: 'Where you took the hash from.', placeholder: 'etherscan.io, 26 Nov' },
};

/** Pinned block hashes: pin, list, unpin. */
export function PinnedBlocksSettings() {
  const { data, error, reload } = useApi('context.pins', undefined);
  const empty: Record<PinField, string> = { chain_id: '', number: '', hash: '', note: '' };
  const [drafts, setDrafts] = useState(empty);
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | undefined>(undefined);
  const [pinnedNow, setPinnedNow] = useState<PinnedBlock | undefined>(undefined);
  const [listError, setListError] = useState<string | undefined>(undefined);
  const parsed = parsePin(drafts);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setTouched(true);
    if (parsed.pin === undefined) return;
    setSaving(true);
    setSaveError(undefined);
    try {
      setPinnedNow(await api['context.pin'](parsed.pin));
      setDrafts(empty);
      setTouched(false);
      reload();
    } catch (reason) {
      setSaveError(errorMessage(reason));
    } finally {
      setSaving(false);
    }
  };

  const unpin = async (pin: PinnedBlock): Promise<void> => {
    setListError(undefined);
    try {
      await api['context.unpin']({ chain_id: pin.chain_id, number: pin.number });
      setPinnedNow(undefined);
      reload();
    } catch (reason) {
      setListError(errorMessage(reason));
    }
  };

  const fields: PinField[] = ['chain_id', 'number', 'hash', 'note'];
  return (
    <>
      <p className="muted settings-intro">
        A context pack’s head is what its maker claims. Pin the hash of a block you got from a trusted source: when a
        pack carries that block with that hash, its head is <strong>checked</strong>, not just claimed. One pin per
        chain and block number; pinning the same block again replaces it.
      </p>
      <form
        className="settings-limits"
        onSubmit={(event) => void submit(event)}
        noValidate
        aria-label="Pin a block hash"
      >
        {fields.map((name) => {
          const problem = parsed.problems[name];
          const show = problem !== undefined && touched;
          return (
            <div key={name} className="settings-limit">
              <label htmlFor={`pin-${name}`} className="settings-limit-label">
                {PIN_LABELS[name].label}
              </label>
              <div className="settings-limit-input">
                <input
                  id={`pin-${name}`}
                  className={name === 'hash' ? 'settings-rpc' : undefined}
                  inputMode={name === 'chain_id' || name === 'number' ? 'numeric' : undefined}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={PIN_LABELS[name].placeholder}
                  value={drafts[name]}
                  aria-invalid={show ? true : undefined}
                  aria-describedby={`pin-${name}-help${show ? ` pin-${name}-error` : ''}`}
                  onChange={(event) => {
                    const text = event.target.value;
                    setDrafts((current) => ({ ...current, [name]: text }));
                    setPinnedNow(undefined);
                  }}
                />
              </div>
              <p id={`pin-${name}-help`} className="settings-help">
                {PIN_LABELS[name].help}
              </p>
              {show && (
                <p id={`pin-${name}-error`} className="settings-error" data-testid={`pin-${name}-error`}>
                  <span aria-hidden="true">⚠ </span>
                  {problem}
                </p>
              )}
            </div>
          );
        })}
        <div className="settings-save">
          <Button type="submit" variant="primary" disabled={saving}>
            {saving ? 'Pinning…' : 'Pin block hash'}
          </Button>
          <span className="settings-status" role="status" aria-live="polite">
            {pinnedNow
              ? `Pinned block ${formatCount(pinnedNow.number)} of chain ${pinnedNow.chain_id}.`
              : touched && parsed.pin === undefined
                ? 'Fix the fields marked above to pin.'
                : ''}
          </span>
        </div>
        {saveError && <ErrorNotice title="The block hash was not pinned" message={saveError} />}
      </form>
      {error && <ErrorNotice title="The pinned block hashes could not be listed" message={error} />}
      {data && data.length === 0 && <p className="muted">No block hash is pinned.</p>}
      {data && data.length > 0 && (
        <TableScroll label="Pinned block hashes">
          <table className="table context-pins" data-testid="context-pins">
            <caption className="visually-hidden">Pinned block hashes</caption>
            <thead>
              <tr>
                <th scope="col">Chain</th>
                <th scope="col">Block</th>
                <th scope="col">Hash</th>
                <th scope="col">Note</th>
                <th scope="col">Pinned</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((pin) => (
                <tr key={`${pin.chain_id}:${pin.number}`} data-pin={`${pin.chain_id}:${pin.number}`}>
                  <td>{pin.chain_id}</td>
                  <td>{formatCount(pin.number)}</td>
                  <td className="code" title={pin.hash}>
                    {shortHash(pin.hash)}
                  </td>
                  <td>{pin.note ?? <span className="muted">none</span>}</td>
                  <td>{pin.pinned_at === undefined ? '' : formatInstant(pin.pinned_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="button button-ghost"
                      onClick={() => void unpin(pin)}
                      aria-label={`Unpin block ${pin.number} of chain ${pin.chain_id}`}
                    >
                      Unpin
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {listError && <ErrorNotice title="The block hash was not unpinned" message={listError} />}
    </>
  );
}
