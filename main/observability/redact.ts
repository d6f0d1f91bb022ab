// Secrets out of foreign texts: an upstream's error body, an error's message. Such a text may echo the credential
// Switchboard sent (a provider that quotes the key it refused, an HTML error page dumping the request's headers), and
// it is shown to clients and stored (the request log, requests.jsonl, a provider's last error, task errors, the
// process log). Every such text goes through redact() before it is shown or stored. Only error texts do: the success
// path never runs it.
//
// Two nets: every configured secret by value (the engine and the app register where theirs are, read at scrub time
// so that `env:` keys and config reloads are current), and credential shapes whoever they belong to (docs/SECURITY.md,
// "How each defence behaves"). A match becomes REDACTED; nothing of the secret is kept.

/** What a secret becomes. */
export const REDACTED = '[redacted]';

/** Configured values shorter than this are not looked for by value: placeholders such as "ollama" or "none". */
export const MIN_SECRET = 8;
/** A run of this many characters of a configured secret (a key cut short, or joined to other text) is scrubbed too. */
export const MIN_FRAGMENT = 12;

/** Where some configured secrets are, asked at every scrub (empty and undefined values are skipped). */
export type SecretSource = () => Iterable<string | null | undefined>;

const sources = new Set<SecretSource>();

/** Registers a source of configured secrets; returns its removal (an engine or app that stops calls it). */
export function addSecretSource(source: SecretSource): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

/** Every registered secret long enough to look for, longest first (so a key containing another goes whole). */
export function knownSecrets(): string[] {
  const out = new Set<string>();
  for (const source of sources) {
    for (const s of source()) if (s && s.length >= MIN_SECRET) out.add(s);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

// A token that is a credential after an auth scheme: 8+ characters with a digit (an English word after "Bearer" is
// not one), or 20+ of any.
const TOKEN_CHARS = String.raw`[A-Za-z0-9._~+/=-]`;
const SCHEME_TOKEN = String.raw`(?:(?=${TOKEN_CHARS}*\d)${TOKEN_CHARS}{8,}|${TOKEN_CHARS}{20,})`;
/** A credential header's or field's value: after its name, 8+ characters are taken to be one. */
const VALUE = String.raw`((?:Bearer|Basic|Token|Key)\s+)?[^\s"'<>,;&]{8,}`;
/** Characters a key is made of: a run of them is checked against the configured secrets' fragments. */
const KEY_RUN = new RegExp(String.raw`[A-Za-z0-9_-]{${MIN_FRAGMENT},}`, 'g');

/** Credential shapes, in order; each is replaced whether or not Switchboard knows the value. */
const PATTERNS: [RegExp, string][] = [
  // Query parameters that carry a credential (Gemini's ?key=, OAuth's access_token, SAS signatures).
  [/([?&](?:key|api[-_]?key|access_token|token|auth|sig|signature)=)[^&\s"'<>#]+/gi, `$1${REDACTED}`],
  // JWTs (header.payload.signature, both first parts base64url JSON).
  [/\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // Vendors' key prefixes: OpenAI and most OpenAI-compatible hosts (sk-, sk-proj-, sk-ant- for Anthropic, sk-or- for
  // OpenRouter, Switchboard's own gateway sk-sb- and agent sk-agent- keys), xAI, Perplexity, NVIDIA; with a digit.
  [/\b(?:sk|xai|pplx|nvapi)-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}/g, REDACTED],
  // Groq (gsk_), Hugging Face (hf_), Replicate (r8_), Switchboard's personal access tokens (sbp_).
  [/\b(?:gsk|hf|r8|sbp)_(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{16,}/g, REDACTED],
  // Google API keys (Gemini), AWS access key ids (Bedrock).
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  // An Authorization-style value: "Bearer <token>", "Basic <token>".
  [new RegExp(String.raw`\b(Bearer|Basic)(\s+)${SCHEME_TOKEN}`, 'gi'), `$1$2${REDACTED}`],
  // A credential header or field and its value: "x-api-key: …", "Authorization: Basic …", "\"api_key\": \"…\"".
  [
    new RegExp(
      String.raw`\b((?:proxy-)?authorization|x-api-key|api[-_]?key|x-goog-api-key|access[-_]token|client[-_]secret|x-switchboard-token)(["']?\s*[:=]\s*["']?)${VALUE}`,
      'gi',
    ),
    `$1$2$3${REDACTED}`,
  ],
];

/** Whether `run` is a piece of one of the secrets (long ones only: a short secret is matched whole). */
function isFragment(run: string, secrets: readonly string[]): boolean {
  for (const s of secrets) if (s.length > MIN_FRAGMENT && s.includes(run)) return true;
  return false;
}

/**
 * `text` with every secret replaced by REDACTED: the configured ones (`secrets`, by default every registered one)
 * whole or as a run of MIN_FRAGMENT key characters, and every credential shape (PATTERNS). Idempotent.
 */
export function redact(text: string, secrets: readonly string[] = knownSecrets()): string {
  if (text === '') return text;
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  if (secrets.length) out = out.replace(KEY_RUN, (run) => (isFragment(run, secrets) ? REDACTED : run));
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement);
  return out;
}

/** redact() for a value that may be absent. */
export function redactMaybe<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? redact(text) : text) as T;
}
