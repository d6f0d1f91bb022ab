// A save's error, in words (from the shared schema or the server).
export function Problems({ messages }: { messages: string[] | null }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div className="error" role="alert" data-testid="form-error">
      <strong>Not saved.</strong>
      <ul>
        {messages.map((m, i) => (
          <li key={i}>{m}</li>
        ))}
      </ul>
    </div>
  );
}
