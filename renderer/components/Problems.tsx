// An action's error, in words (from the shared schema or the server): "Not saved." for a save (the default), another
// `title` for other actions. A save's outcome is announced by the window's live region already (`announced`), so the
// panel is then not an alert of its own.
export function Problems({
  messages,
  title = 'Not saved.',
  announced,
}: {
  messages: string[] | null;
  title?: string;
  announced?: boolean;
}) {
  if (!messages || messages.length === 0) return null;
  return (
    <div className="error" role={announced ? undefined : 'alert'} data-testid="form-error">
      <strong>{title}</strong>
      <ul>
        {messages.map((m, i) => (
          <li key={i}>{m}</li>
        ))}
      </ul>
    </div>
  );
}
