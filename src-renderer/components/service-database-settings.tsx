/**
 * Settings: the Service view's database. Empty for this workspace's ledger (SQLite), or a
 * PostgreSQL URL shared with `evroom serve --database` nodes. The app answers the URL with its
 * password masked; saving it unchanged keeps the stored password. Checked here with the
 * contract's own rule (`databaseUrlProblem`); `settings.set` checks again.
 */
import { useState, type FormEvent } from 'react';
import { databaseUrlProblem } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { Button, ErrorNotice } from './ui';

/** The service database form. */
export function ServiceDatabaseSettings({ initial }: { initial: string | null }) {
  const [saved, setSaved] = useState<string | null>(initial);
  const [text, setText] = useState(initial ?? '');
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | undefined>(undefined);
  const [savedNow, setSavedNow] = useState(false);

  const trimmed = text.trim();
  const problem = trimmed === '' ? undefined : databaseUrlProblem(trimmed);
  const dirty = (trimmed === '' ? null : trimmed) !== saved;
  const showProblem = problem !== undefined && (touched || dirty);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setTouched(true);
    if (problem !== undefined) return;
    setSaving(true);
    setSaveError(undefined);
    try {
      const answer = await api['settings.set']({ service_database: trimmed === '' ? null : trimmed });
      setSaved(answer.service_database);
      setText(answer.service_database ?? '');
      setSavedNow(true);
      setTouched(false);
    } catch (reason) {
      setSaveError(errorMessage(reason));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <p className="muted settings-intro">
        The Service view’s tenants, API keys, quota use and payments, and the service it starts, use this database.
        Leave it empty for this workspace’s own ledger; give a PostgreSQL URL to work on the database that{' '}
        <code>evroom serve --database</code> nodes share. The password stays in the data folder and is shown masked;
        save the masked URL unchanged to keep it.
      </p>
      <form
        className="settings-limits"
        onSubmit={(event) => void submit(event)}
        noValidate
        aria-label="Service database"
      >
        <div className="settings-limit">
          <label htmlFor="service-database" className="settings-limit-label">
            Service database
          </label>
          <div className="settings-limit-input">
            <input
              id="service-database"
              className="settings-rpc"
              type="text"
              autoComplete="off"
              spellCheck={false}
              placeholder="postgres://user:password@host:5432/database"
              value={text}
              aria-invalid={showProblem ? true : undefined}
              aria-describedby={`service-database-help${showProblem ? ' service-database-error' : ''}`}
              onChange={(event) => {
                setText(event.target.value);
                setSavedNow(false);
              }}
            />
          </div>
          <p id="service-database-help" className="settings-help">
            A <code>postgres://</code> or <code>postgresql://</code> URL. Empty: this workspace’s ledger (SQLite).
          </p>
          {showProblem && (
            <p id="service-database-error" className="settings-error">
              <span aria-hidden="true">⚠ </span>
              {problem}
            </p>
          )}
        </div>
        <div className="settings-save">
          <Button type="submit" variant="primary" disabled={saving || !dirty}>
            {saving ? 'Saving…' : 'Save service database'}
          </Button>
          <span className="settings-status" role="status" aria-live="polite">
            {savedNow && !dirty ? 'Service database saved.' : dirty ? 'Unsaved changes.' : ''}
          </span>
        </div>
        {saveError && (
          <ErrorNotice
            title="The service database was not saved"
            message={saveError}
            hint="Nothing changed; the Service view stays on its current database."
          />
        )}
      </form>
    </>
  );
}
