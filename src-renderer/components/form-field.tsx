/**
 * A labelled form field with its hint or its error, and the field an API refusal names: the
 * pieces the Service view's forms (tenants, API keys, buying a key) share.
 */
import type { ReactNode } from 'react';
import { errorMessage } from '../api';

/** Each field's error, and `form` for one that names no field. */
export type FieldErrors<Name extends string> = Partial<Record<Name | 'form', string>>;

/** An error under a field (announced when it appears). */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p className="field-error" id={id} role="alert">
      <span aria-hidden="true">✗ </span>
      {message}
    </p>
  );
}

/**
 * A field: its label, the control, and below it the error (`<id>-error`) or else the hint
 * (`<id>-hint`); the control's `aria-describedby` names whichever is shown.
 */
export function formField(
  id: string,
  label: string,
  error: string | undefined,
  control: ReactNode,
  hint?: ReactNode,
): ReactNode {
  return (
    <div className={`service-field${error ? ' pin-field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {control}
      {error ? (
        <FieldError id={`${id}-error`} message={error} />
      ) : (
        hint && (
          <p className="field-hint" id={`${id}-hint`}>
            {hint}
          </p>
        )
      )}
    </div>
  );
}

/**
 * Which field an API refusal names: the envelope's first detail path (`/id`), else the form.
 *
 * @returns the errors to show, the message with its code when the code says more than "invalid"
 */
export function refusalErrors<Name extends string>(reason: unknown, fields: readonly Name[]): FieldErrors<Name> {
  const failure = reason as { code?: unknown; details?: { path: string; message: string }[] };
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const message =
    code !== undefined && code !== 'invalid_request' ? `${errorMessage(reason)} (${code})` : errorMessage(reason);
  const named = failure.details
    ?.map((detail) => detail.path.replace(/^\//, ''))
    .find((path): path is Name => (fields as readonly string[]).includes(path));
  return { [named ?? 'form']: message } as FieldErrors<Name>;
}
