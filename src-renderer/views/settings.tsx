/**
 * Settings: where the data lives, the theme, the chain for anchor checks, the context packs and
 * pinned block hashes for air-gapped checks, and the limits every bundle import is held to.
 *
 * The theme applies the moment it is picked and is saved on its own; the import limits are a
 * form with a Save button, checked here against the same bounds the app API enforces so the
 * user sees what is wrong before sending it.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { THEMES, type Limits, type Settings, type Theme } from '../../src-shared/api/contract';
import { api, errorMessage, useApi } from '../api';
import { Button, ErrorNotice, Loading, Page, Panel, formatCount } from '../components/ui';
import { ChainSettingsForm } from '../components/chain-settings';
import { ServiceDatabaseSettings } from '../components/service-database-settings';
import { ContextPacksSettings, PinnedBlocksSettings } from '../components/context-settings';
import './settings.css';

/**
 * The bounds of each limit, as `settings.set` in src-shared/api/contract.ts checks them.
 *
 * Kept in step by hand: the contract writes them inline in its validator.
 */
const LIMIT_BOUNDS: Record<keyof Limits, { min: number; max: number; words?: string }> = {
  maxEntries: { min: 1, max: 10_000_000 },
  maxBytes: { min: 1024, max: 1024 ** 4, words: '1 KB to 1,024 GB' },
  maxRatio: { min: 1, max: 100_000 },
};

const THEME_TEXT: Record<Theme, { label: string; detail: string }> = {
  system: { label: 'System', detail: 'Follow the operating system’s light or dark setting.' },
  light: { label: 'Light', detail: 'Dark text on a light background.' },
  dark: { label: 'Dark', detail: 'Light text on a dark background.' },
};

const LIMIT_TEXT: Record<keyof Limits, { label: string; help: string; unit: string }> = {
  maxEntries: { label: 'Maximum entries', help: 'The most files a bundle’s zip may list.', unit: 'entries' },
  maxBytes: {
    label: 'Maximum total size',
    help: 'The most bytes a bundle may unpack to, all files together.',
    unit: 'bytes',
  },
  maxRatio: {
    label: 'Maximum compression ratio',
    help: 'How many times larger than its compressed size a file may unpack to. Honest receipts compress 2–5 times; zip bombs need hundreds.',
    unit: 'to 1',
  },
};

type LimitDrafts = Record<keyof Limits, string>;

/**
 * Checks one limit as typed; returns the number or what is wrong with it.
 *
 * @param name - Which limit.
 * @param text - The field's text.
 * @returns the value, or an error message mirroring the contract's bounds.
 */
function parseLimit(name: keyof Limits, text: string): number | { error: string } {
  const { min, max, words } = LIMIT_BOUNDS[name];
  const label = LIMIT_TEXT[name].label;
  const range = `from ${formatCount(min)} to ${formatCount(max)}${words ? ` (${words})` : ''}`;
  const trimmed = text.trim().replace(/[,_\s]/g, '');
  if (trimmed === '') return { error: `${label} is required: enter a whole number ${range}.` };
  if (!/^\d+$/.test(trimmed)) return { error: `${label} must be a whole number ${range}.` };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value) || value < min || value > max) return { error: `${label} must be ${range}.` };
  return value;
}

/** A byte count in binary megabytes and gigabytes, e.g. "2,048 MB (2 GB)". */
function bytesInWords(bytes: number): string {
  const megabytes = bytes / 1024 ** 2;
  const gigabytes = bytes / 1024 ** 3;
  const round = (value: number): string =>
    Number.isInteger(value)
      ? formatCount(value)
      : value.toLocaleString('en-US', { maximumFractionDigits: value < 10 ? 2 : 1 });
  if (gigabytes >= 1) return `${round(megabytes)} MB (${round(gigabytes)} GB)`;
  if (megabytes >= 0.01) return `${round(megabytes)} MB`;
  return `${round(bytes / 1024)} KB`;
}

function draftsOf(limits: Limits): LimitDrafts {
  return {
    maxEntries: formatCount(limits.maxEntries),
    maxBytes: formatCount(limits.maxBytes),
    maxRatio: formatCount(limits.maxRatio),
  };
}

/** The Settings page. */
export function SettingsView({ onTheme }: { onTheme: (theme: Theme) => void }) {
  const { data, error, reload } = useApi('settings.get', undefined);
  return (
    <Page
      title="Settings"
      subtitle="Where your data lives, how the app looks, and the limits every bundle import is held to."
    >
      {error && (
        <ErrorNotice
          title="The settings could not be loaded"
          message={error}
          hint={
            <button type="button" className="button button-secondary" onClick={reload}>
              Try again
            </button>
          }
        />
      )}
      {!data && !error && <Loading />}
      {data && <SettingsForm initial={data} onTheme={onTheme} />}
    </Page>
  );
}

function SettingsForm({ initial, onTheme }: { initial: Settings; onTheme: (theme: Theme) => void }) {
  const [theme, setTheme] = useState<Theme>(initial.theme);
  const [themeState, setThemeState] = useState<{ saving: boolean; error?: string; saved?: boolean }>({ saving: false });
  const [saved, setSaved] = useState<Limits>(initial.limits);
  const [drafts, setDrafts] = useState<LimitDrafts>(() => draftsOf(initial.limits));
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | undefined>(undefined);
  const [savedAt, setSavedAt] = useState<Date | undefined>(undefined);
  const themeRequest = useRef(0);

  const chooseTheme = async (next: Theme): Promise<void> => {
    setTheme(next);
    onTheme(next);
    const request = ++themeRequest.current;
    setThemeState({ saving: true });
    try {
      const answer = await api['settings.set']({ theme: next });
      if (request === themeRequest.current) setThemeState({ saving: false, saved: answer.theme === next });
    } catch (reason) {
      if (request === themeRequest.current) setThemeState({ saving: false, error: errorMessage(reason) });
    }
  };

  const parsed = {
    maxEntries: parseLimit('maxEntries', drafts.maxEntries),
    maxBytes: parseLimit('maxBytes', drafts.maxBytes),
    maxRatio: parseLimit('maxRatio', drafts.maxRatio),
  };
  const names = Object.keys(parsed) as (keyof Limits)[];
  const valid = names.every((name) => typeof parsed[name] === 'number');
  const dirty = names.some((name) => parsed[name] !== saved[name]);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setTouched(true);
    if (!valid) return;
    const limits = {
      maxEntries: parsed.maxEntries as number,
      maxBytes: parsed.maxBytes as number,
      maxRatio: parsed.maxRatio as number,
    };
    setSaving(true);
    setSaveError(undefined);
    try {
      const answer = await api['settings.set']({ limits });
      setSaved(answer.limits);
      setDrafts(draftsOf(answer.limits));
      setSavedAt(new Date());
      setTouched(false);
    } catch (reason) {
      setSaveError(errorMessage(reason));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="settings-sections">
      <Panel title="Data folder">
        <DataFolder path={initial.dataDirectory} />
      </Panel>

      <Panel title="Appearance">
        <fieldset className="settings-fieldset">
          <legend className="settings-legend">Theme</legend>
          <div className="settings-themes">
            {THEMES.map((value) => (
              <label key={value} className={`settings-theme${theme === value ? ' settings-theme-selected' : ''}`}>
                <input
                  type="radio"
                  name="theme"
                  value={value}
                  checked={theme === value}
                  onChange={() => void chooseTheme(value)}
                />
                <span className="settings-theme-text">
                  <span className="settings-theme-label">{THEME_TEXT[value].label}</span>
                  <span className="settings-theme-detail">{THEME_TEXT[value].detail}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <p className="settings-status" role="status" aria-live="polite">
          {themeState.saving ? 'Saving…' : themeState.saved ? 'Theme saved.' : ''}
        </p>
        {themeState.error && (
          <ErrorNotice
            title="The theme was applied but not saved"
            message={themeState.error}
            hint="It will be back to the previous theme after a restart. Pick it again to retry."
          />
        )}
      </Panel>

      <Panel title="Chain for anchor checks">
        <ChainSettingsForm initial={initial.chain} />
      </Panel>

      <Panel title="Service database">
        <ServiceDatabaseSettings initial={initial.service_database} />
      </Panel>

      <Panel title="Context packs">
        <ContextPacksSettings />
      </Panel>

      <Panel title="Pinned block hashes">
        <PinnedBlocksSettings />
      </Panel>

      <Panel title="Import limits">
        <p className="muted settings-intro">
          Before a bundle’s zip is unpacked, its listing is checked against these limits, so a damaged or hostile zip is
          refused instead of filling the disk. Changes apply to the next import.
        </p>
        <form className="settings-limits" onSubmit={(event) => void submit(event)} noValidate>
          {names.map((name) => {
            const value = parsed[name];
            const problem = typeof value === 'number' ? undefined : value.error;
            const showProblem = problem !== undefined && (touched || drafts[name] !== formatCount(saved[name]));
            const describedBy = `limit-${name}-help${showProblem ? ` limit-${name}-error` : ''}`;
            return (
              <div key={name} className="settings-limit">
                <label htmlFor={`limit-${name}`} className="settings-limit-label">
                  {LIMIT_TEXT[name].label}
                </label>
                <div className="settings-limit-input">
                  <input
                    id={`limit-${name}`}
                    inputMode="numeric"
                    autoComplete="off"
                    value={drafts[name]}
                    aria-invalid={showProblem ? true : undefined}
                    aria-describedby={describedBy}
                    onChange={(event) => {
                      const text = event.target.value;
                      setDrafts((current) => ({ ...current, [name]: text }));
                      setSavedAt(undefined);
                    }}
                  />
                  <span className="settings-unit">{LIMIT_TEXT[name].unit}</span>
                  {name === 'maxBytes' && typeof value === 'number' && (
                    <span className="settings-conversion" data-testid="max-bytes-words">
                      = {bytesInWords(value)}
                    </span>
                  )}
                </div>
                <p id={`limit-${name}-help`} className="settings-help">
                  {LIMIT_TEXT[name].help} Allowed: {formatCount(LIMIT_BOUNDS[name].min)} to{' '}
                  {formatCount(LIMIT_BOUNDS[name].max)}
                  {LIMIT_BOUNDS[name].words ? ` (${LIMIT_BOUNDS[name].words})` : ''}.
                </p>
                {showProblem && (
                  <p id={`limit-${name}-error`} className="settings-error">
                    <span aria-hidden="true">⚠ </span>
                    {problem}
                  </p>
                )}
              </div>
            );
          })}
          <div className="settings-save">
            <Button type="submit" variant="primary" disabled={saving || !dirty}>
              {saving ? 'Saving…' : 'Save limits'}
            </Button>
            <Button
              onClick={() => {
                setDrafts(draftsOf(saved));
                setTouched(false);
                setSaveError(undefined);
              }}
              disabled={saving || !dirty}
              variant="ghost"
            >
              Discard changes
            </Button>
            <span className="settings-status" role="status" aria-live="polite">
              {savedAt && !dirty
                ? `Saved at ${savedAt.toLocaleTimeString('en-GB')}.`
                : dirty
                  ? valid
                    ? 'Unsaved changes.'
                    : 'Fix the fields marked above to save.'
                  : ''}
            </span>
          </div>
          {saveError && (
            <ErrorNotice
              title="The limits were not saved"
              message={saveError}
              hint="Nothing changed; the previous limits still apply."
            />
          )}
        </form>
      </Panel>
    </div>
  );
}

/** The data folder, read-only, with a copy button. */
function DataFolder({ path }: { path: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>(undefined);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(undefined), 2500);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(path);
      setCopied('yes');
    } catch {
      // Without clipboard access (an insecure origin, a denied permission) select the text so
      // the user can copy it with the keyboard.
      field.current?.select();
      setCopied('failed');
    }
  };

  return (
    <>
      <p className="muted settings-intro">
        The ledger, the trust store and these settings live here. To use another folder, start Evidence Room with the
        EVROOM_HOME environment variable set to it.
      </p>
      <div className="settings-folder">
        <label htmlFor="data-folder" className="visually-hidden">
          Data folder
        </label>
        <input
          id="data-folder"
          ref={field}
          className="settings-folder-path"
          readOnly
          value={path}
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button onClick={() => void copy()}>Copy</Button>
        <span className="settings-status" role="status" aria-live="polite">
          {copied === 'yes'
            ? 'Copied.'
            : copied === 'failed'
              ? 'Could not reach the clipboard; the path is selected, press Ctrl+C to copy it.'
              : ''}
        </span>
      </div>
    </>
  );
}
