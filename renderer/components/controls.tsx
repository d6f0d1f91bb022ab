// Small controls the pages share: a form that stays on the page, a select of names, a labelled checkbox, a table
// with a header row, a danger button that may ask first, and an error line.
import type {
  ButtonHTMLAttributes,
  FormHTMLAttributes,
  InputHTMLAttributes,
  ReactNode,
  SelectHTMLAttributes,
} from 'react';

/** A form whose submit calls `onSubmit` instead of loading a page. */
export function Form({
  onSubmit,
  ...rest
}: Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & { onSubmit: () => void }) {
  return (
    <form
      {...rest}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    />
  );
}

/** A select of `options` (each its own value and label), after a first option of value "" labelled `blank`. */
export function Select({
  options,
  blank,
  ...rest
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'children'> & { options: readonly string[]; blank?: string }) {
  return (
    <select {...rest}>
      {blank !== undefined && <option value="">{blank}</option>}
      {options.map((o) => (
        <option key={o}>{o}</option>
      ))}
    </select>
  );
}

/** A checkbox with its label after it; `row` lays the label out as a row. */
export function Checkbox({
  label,
  row,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & { label: ReactNode; row?: boolean }) {
  return (
    <label className={row ? 'row' : undefined}>
      <input type="checkbox" {...input} /> {label}
    </label>
  );
}

/** A table: a header row when `head` is given (an empty title for a column of buttons), then the rows. */
export function Table({ head, children }: { head?: ReactNode[]; children: ReactNode }) {
  return (
    <table>
      {head && (
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={i}>{h}</th>
            ))}
          </tr>
        </thead>
      )}
      <tbody>{children}</tbody>
    </table>
  );
}

/** A red button (Delete, Remove, Revoke); with `confirm`, it asks that question first and does nothing on Cancel. */
export function DangerButton({
  confirm,
  onClick,
  ...rest
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'className'> & { confirm?: string; onClick: () => void }) {
  return (
    <button
      {...rest}
      className="danger"
      onClick={() => {
        if (confirm === undefined || window.confirm(confirm)) onClick();
      }}
    />
  );
}

/** One error in words, or nothing when there is none. */
export function ErrorLine({
  message,
  alert,
  testId,
}: {
  message: string | null | undefined;
  alert?: boolean;
  testId?: string;
}) {
  if (!message) return null;
  return (
    <div className="error" role={alert ? 'alert' : undefined} data-testid={testId}>
      {message}
    </div>
  );
}

/** An address that may wrap only after a "/", "." or "?" (a <wbr> there), never in the middle of a word. */
export function Address({ url, className, testId }: { url: string; className?: string; testId?: string }) {
  const parts = url.split(/(?<=[/.?&])/);
  return (
    <span className={`mono ${className ?? ''}`} data-testid={testId}>
      {parts.map((p, i) => (
        <span key={i}>
          {p}
          {i < parts.length - 1 && <wbr />}
        </span>
      ))}
    </span>
  );
}
