/**
 * The key, trust and secrets files Verify uses for this session, as `evroom verify --keys
 * --trust --secret` and the one-file verifier page take them.
 *
 * A file is read here (never written anywhere: not to disk, not to browser storage, not to a
 * log), parsed at once with the CLI's own parsers so a file that cannot be used is said at once,
 * and sent with each verify call, where the main process parses it again and decides. The files
 * live in this tab's memory until "Forget these files" or until the tab closes. What they hold is
 * shown as counts: a secret's value is never shown.
 */
import { useId, useRef, useState, type ReactNode } from 'react';
import { MAX_VERIFY_KEY_FILE_TEXT, type VerifyFileInput } from '../../src-shared/api/contract';
import { KeyFileError, parseKeyFile, parseSecretsFile } from '../../src-shared/verify/key-file';
import { Button, formatCount } from './ui';
import './verify-files.css';

/** The kinds of file, as the verify call names them. */
export type VerifyFileKind = 'keys' | 'trust' | 'secrets';

/** A file chosen for the session: usable (with its count) or refused (with why). */
export interface ChosenFile {
  name: string;
  /** The text, sent with each verify call; undefined when the file cannot be used. */
  text?: string;
  count?: number;
  error?: string;
}

/** The files chosen, by kind. */
export type ChosenFiles = Partial<Record<VerifyFileKind, ChosenFile>>;

/** What a verify call carries: the usable files only. */
export function filesForCall(files: ChosenFiles): Partial<Record<VerifyFileKind, VerifyFileInput>> {
  const result: Partial<Record<VerifyFileKind, VerifyFileInput>> = {};
  for (const kind of ['keys', 'trust', 'secrets'] as const) {
    const file = files[kind];
    if (file?.text !== undefined) result[kind] = { name: file.name, text: file.text };
  }
  return result;
}

// The session's files: in this tab's memory only, so leaving Verify and coming back keeps them.
let sessionFiles: ChosenFiles = {};

/** The files chosen earlier in this tab (empty after "Forget these files"). */
export function rememberedFiles(): ChosenFiles {
  return sessionFiles;
}

/** A CLI option named in help text, kept on one line. */
function Flag({ name }: { name: string }) {
  return <code className="code verify-files-flag">evroom verify {name}</code>;
}

const KINDS: { kind: VerifyFileKind; label: string; help: ReactNode; unit: [string, string] }[] = [
  {
    kind: 'keys',
    label: 'Key file',
    help: (
      <>
        Public keys to check signatures with (as <Flag name="--keys" />
        ); they never make an issuer trusted.
      </>
    ),
    unit: ['public key', 'public keys'],
  },
  {
    kind: 'trust',
    label: 'Trust file',
    help: (
      <>
        Keys you pin for this session only (as <Flag name="--trust" />
        ): signatures by them read “trusted”.
      </>
    ),
    unit: ['key pinned for this session', 'keys pinned for this session'],
  },
  {
    kind: 'secrets',
    label: 'Secrets file',
    help: (
      <>
        AES-256-GCM secrets that open sealed documents (as <Flag name="--secret" />
        ).
      </>
    ),
    unit: ['secret', 'secrets'],
  },
];

const PARSERS: Record<VerifyFileKind, (text: string) => unknown[]> = {
  keys: (text) => parseKeyFile(text, { advertised: true }),
  trust: (text) => parseKeyFile(text),
  secrets: parseSecretsFile,
};

/** Reads and checks one chosen file. */
async function readChosen(file: File, kind: VerifyFileKind): Promise<ChosenFile> {
  if (file.size > MAX_VERIFY_KEY_FILE_TEXT)
    return {
      name: file.name,
      error: `it is ${formatCount(file.size)} bytes; key, trust and secrets files are at most ${formatCount(MAX_VERIFY_KEY_FILE_TEXT)}.`,
    };
  try {
    const text = await file.text();
    return { name: file.name, text, count: PARSERS[kind](text).length };
  } catch (error) {
    if (error instanceof KeyFileError)
      return { name: file.name, error: `${error.message}${error.path === '' ? '' : ` (at ${error.path})`}` };
    return { name: file.name, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The three file choosers, what each file holds, and "Forget these files".
 *
 * @param props.files - The files chosen.
 * @param props.onChange - Receives the new choice (also kept for the session).
 */
export function VerifyFiles({ files, onChange }: { files: ChosenFiles; onChange: (files: ChosenFiles) => void }) {
  const inputs = useRef<Partial<Record<VerifyFileKind, HTMLInputElement | null>>>({});
  const [reading, setReading] = useState(0);
  const id = useId();

  const choose = async (kind: VerifyFileKind, file: File | undefined): Promise<void> => {
    if (!file) return;
    setReading((value) => value + 1);
    const chosen = await readChosen(file, kind);
    setReading((value) => value - 1);
    sessionFiles = { ...sessionFiles, [kind]: chosen };
    onChange(sessionFiles);
  };

  const forget = (): void => {
    sessionFiles = {};
    for (const input of Object.values(inputs.current)) if (input) input.value = '';
    onChange(sessionFiles);
  };

  const any = Object.values(files).some((file) => file !== undefined);
  return (
    <section className="verify-files" aria-labelledby={`${id}-title`} data-testid="verify-files">
      <h3 id={`${id}-title`} className="verify-files-title">
        Keys and secrets for this session
      </h3>
      <p className="muted verify-files-intro">
        For documents signed by keys you have not pinned, or sealed. They stay in this window’s memory only, until you
        forget them or close it, and apply to every document you verify here.
      </p>
      <ul className="verify-files-list">
        {KINDS.map(({ kind, label, help, unit }) => {
          const file = files[kind];
          return (
            <li key={kind} className="verify-files-item">
              <div className="verify-files-head">
                <span className="verify-files-label" id={`${id}-${kind}`}>
                  {label}
                </span>
                <label className="button button-secondary verify-files-choose">
                  <input
                    ref={(element) => {
                      inputs.current[kind] = element;
                    }}
                    type="file"
                    className="visually-hidden"
                    accept=".json,application/json"
                    data-testid={`verify-${kind}`}
                    aria-describedby={`${id}-${kind}-help ${id}-${kind}-status`}
                    onChange={(event) => void choose(kind, event.currentTarget.files?.[0])}
                  />
                  {file ? 'Choose another…' : 'Choose…'}
                  <span className="visually-hidden"> {label.toLowerCase()}</span>
                </label>
              </div>
              <p className="muted verify-files-help" id={`${id}-${kind}-help`}>
                {help}
              </p>
              <p
                id={`${id}-${kind}-status`}
                className={`verify-files-status${file?.error ? ' verify-files-error' : file ? ' verify-files-ok' : ''}`}
                data-testid={`verify-${kind}-status`}
                role={file?.error ? 'alert' : undefined}
              >
                {file === undefined ? (
                  <span className="muted">None chosen.</span>
                ) : file.error !== undefined ? (
                  <>
                    <span aria-hidden="true">✗ </span>
                    <strong>{file.name}</strong>: not used: {file.error}
                  </>
                ) : (
                  <>
                    <span aria-hidden="true">✓ </span>
                    <strong>{file.name}</strong>: {formatCount(file.count ?? 0)}{' '}
                    {(file.count ?? 0) === 1 ? unit[0] : unit[1]}
                  </>
                )}
              </p>
            </li>
          );
        })}
      </ul>
      <div className="verify-files-actions">
        <Button variant="ghost" onClick={forget} disabled={!any || reading > 0}>
          Forget these files
        </Button>
      </div>
    </section>
  );
}
