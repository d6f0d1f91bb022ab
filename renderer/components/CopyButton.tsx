// A Copy button: navigator.clipboard where the page may use it, else a hidden textarea and execCommand('copy')
// (plain http pages, older webviews); it says "Copied" for two seconds, or what went wrong.
import { useEffect, useState } from 'react';

/** Copies `text`; answers whether it worked. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // not allowed here (permissions, focus): the fallback below
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/** `label` names what is copied for screen readers ("Copy OpenAI base URL"). */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [said, setSaid] = useState<'Copied' | 'Copy failed: select and copy it by hand' | null>(null);
  useEffect(() => {
    if (!said) return;
    const t = setTimeout(() => setSaid(null), 2000);
    return () => clearTimeout(t);
  }, [said]);
  return (
    <span className="copy">
      <button
        type="button"
        aria-label={label}
        data-testid={testId}
        onClick={() =>
          void copyText(text).then((ok) => setSaid(ok ? 'Copied' : 'Copy failed: select and copy it by hand'))
        }
      >
        Copy
      </button>
      <span role="status" className="small">
        {said ?? ''}
      </span>
    </span>
  );
}
