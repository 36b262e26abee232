/**
 * An identifier or hash with a button that copies the whole of it.
 *
 * Shown whole by default (it wraps inside its box); when a view shortens it to fit, the visible
 * short form is hidden from assistive technology, the full value stays in the DOM for screen
 * readers and in the title on hover, and the button always copies the full value.
 */
import { CopyButton } from './receipts-shared';
import './copyable-value.css';

/**
 * A value and its copy button.
 *
 * @param value - The whole value (what is copied).
 * @param what - What it is, for the button's name: "Copy the receipt id". Avoid the words of a form
 *   field's label on the same page ("key id"): a label lookup would find the button too.
 * @param short - A shortened form to show instead of the whole value.
 * @param testId - A data-testid for the wrapper.
 * @param className - More classes for the wrapper.
 */
export function CopyableValue({
  value,
  what,
  short,
  testId,
  className = '',
}: {
  value: string;
  what: string;
  short?: string;
  testId?: string;
  className?: string;
}) {
  return (
    <span className={`copyable-value ${className}`.trim()} data-testid={testId} data-value={value}>
      {short === undefined || short === value ? (
        <code className="code copyable-value-text">{value}</code>
      ) : (
        <code className="code copyable-value-text" title={value}>
          <span aria-hidden="true">{short}</span>
          <span className="visually-hidden">{value}</span>
        </code>
      )}
      <CopyButton text={value} what={what} />
    </span>
  );
}
