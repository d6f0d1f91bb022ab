// The secret guard's rules, as data: each key type's published format (the vendor's documentation, or gitleaks'
// rule for it where the vendor publishes none), with the literal its keys start with. The scanner (scan.ts) looks for
// every rule's anchors in one pass over the request's bytes and checks a rule's pattern only where its anchor is.
// Adding a key type is adding an entry here and its cases in rules.test.ts (a real-format example, near-misses).

/** One key type. */
export type SecretRule = {
  /** Stable id: the request log, notices, placeholders and the block error name it (never the value). */
  id: string;
  /** What it is, in words. */
  title: string;
  /** Literals a key of this type starts with (case-sensitive): where the scanner tries `pattern`. */
  anchors: readonly string[];
  /**
   * The key's format, matched at the anchor's position (sticky): the whole match is the secret. A JSON body escapes
   * newlines as `\n`, so multi-line secrets (private keys) match their escaped text.
   */
  pattern: string;
  /** The format's source. */
  source: string;
};

/** Characters that continue a token: an anchor preceded by one is inside a longer word, not a key's start. */
export const TOKEN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fixed-length key must end where its token ends. */
const END = '(?![A-Za-z0-9])';

export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'aws-access-key-id',
    title: 'AWS access key id',
    // AKIA: long-term user keys; ASIA: temporary (STS) keys; ABIA/ACCA: other AWS key kinds; 16 base-32 characters.
    anchors: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    pattern: `(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}${END}`,
    source: 'AWS IAM user guide, "Understanding unique ID prefixes"; gitleaks aws-access-token',
  },
  {
    id: 'private-key',
    title: 'private key (PEM)',
    // The whole block: BEGIN line, the base64 body, END line of the same kind (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP).
    anchors: ['-----BEGIN '],
    pattern:
      '-----BEGIN ((?:[A-Z0-9]+ ){0,3})PRIVATE KEY( BLOCK)?-----[A-Za-z0-9+/=:,\\s\\\\-]{16,16384}?-----END \\1PRIVATE KEY\\2-----',
    source: 'RFC 7468 (textual encoding of PKCS #8, "PRIVATE KEY"); OpenSSH and OpenPGP armor headers',
  },
  {
    id: 'anthropic-api-key',
    title: 'Anthropic API key',
    anchors: ['sk-ant-api03-', 'sk-ant-admin01-'],
    pattern: `sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA${END}`,
    source: 'Anthropic console keys (sk-ant-api03-…, admin keys sk-ant-admin01-…); gitleaks anthropic-api-key',
  },
  {
    id: 'openai-api-key',
    title: 'OpenAI API key',
    // Project, service-account and admin keys, and the older user keys; each holds the marker T3BlbkFJ ("OpenAI").
    anchors: ['sk-'],
    pattern: `sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,156}T3BlbkFJ[A-Za-z0-9_-]{20,156}${END}`,
    source: 'OpenAI API keys (sk-proj-…, sk-svcacct-…, sk-admin-…); gitleaks openai-api-key',
  },
  {
    id: 'openrouter-api-key',
    title: 'OpenRouter API key',
    anchors: ['sk-or-v1-'],
    pattern: `sk-or-v1-[0-9a-f]{64}${END}`,
    source: 'OpenRouter keys (sk-or-v1- and 64 hex digits)',
  },
  {
    id: 'github-token',
    title: 'GitHub token',
    // Personal (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server (ghs_), refresh (ghr_): 36 characters.
    anchors: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    pattern: `gh[pousr]_[A-Za-z0-9]{36}${END}`,
    source: 'GitHub docs, "About authentication to GitHub" (token prefixes); gitleaks github-pat',
  },
  {
    id: 'github-fine-grained-pat',
    title: 'GitHub fine-grained token',
    anchors: ['github_pat_'],
    pattern: `github_pat_[A-Za-z0-9_]{82}${END}`,
    source: 'GitHub fine-grained personal access tokens; gitleaks github-fine-grained-pat',
  },
  {
    id: 'gitlab-token',
    title: 'GitLab personal access token',
    anchors: ['glpat-'],
    pattern: `glpat-[A-Za-z0-9_-]{20}${END}`,
    source: 'GitLab docs, "Token prefixes"; gitleaks gitlab-pat',
  },
  {
    id: 'slack-token',
    title: 'Slack token',
    anchors: ['xoxb-', 'xoxp-', 'xoxa-', 'xoxr-', 'xoxs-', 'xoxe-'],
    pattern: 'xox[bpares]-[0-9]{10,13}-[A-Za-z0-9-]{10,}',
    source: 'Slack API, "Token types"; gitleaks slack-bot-token / slack-user-token',
  },
  {
    id: 'google-api-key',
    title: 'Google API key',
    anchors: ['AIza'],
    pattern: `AIza[A-Za-z0-9_-]{35}${END}`,
    source: 'Google Cloud API keys (AIza and 35 characters); gitleaks gcp-api-key',
  },
  {
    id: 'stripe-key',
    title: 'Stripe secret or restricted key',
    anchors: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'],
    pattern: `[sr]k_(?:live|test)_[A-Za-z0-9]{24,99}${END}`,
    source: 'Stripe docs, "API keys"; gitleaks stripe-access-token',
  },
  {
    id: 'npm-token',
    title: 'npm access token',
    anchors: ['npm_'],
    pattern: `npm_[A-Za-z0-9]{36}${END}`,
    source: 'npm docs, "About access tokens" (npm_ prefix); gitleaks npm-access-token',
  },
  {
    id: 'huggingface-token',
    title: 'Hugging Face token',
    anchors: ['hf_'],
    pattern: `hf_[A-Za-z]{34}${END}`,
    source: 'Hugging Face user access tokens; gitleaks huggingface-access-token',
  },
  {
    id: 'groq-api-key',
    title: 'Groq API key',
    anchors: ['gsk_'],
    pattern: `gsk_[A-Za-z0-9]{52}${END}`,
    source: 'Groq console keys (gsk_ and 52 characters)',
  },
  {
    id: 'xai-api-key',
    title: 'xAI API key',
    anchors: ['xai-'],
    pattern: `xai-[A-Za-z0-9]{80}${END}`,
    source: 'xAI console keys (xai- and 80 characters)',
  },
  {
    id: 'sendgrid-api-key',
    title: 'SendGrid API key',
    anchors: ['SG.'],
    pattern: `SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${END}`,
    source: 'SendGrid API keys (SG.<22>.<43>); gitleaks sendgrid-api-token',
  },
  {
    id: 'pypi-token',
    title: 'PyPI upload token',
    anchors: ['pypi-AgEIcHlwaS5vcmc'],
    pattern: 'pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}',
    source: 'PyPI API tokens (macaroons for pypi.org); gitleaks pypi-upload-token',
  },
  {
    id: 'jwt',
    title: 'JSON Web Token',
    // Header and payload are base64url JSON objects (so both start eyJ), then the signature.
    anchors: ['eyJ'],
    pattern: `eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}${END}`,
    source: 'RFC 7519 (JWS compact serialization); gitleaks jwt',
  },
];

/**
 * `.env`-style assignments: NAME=value on a line of its own (or after `export `), where NAME says it is a credential
 * (it contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, PWD, CREDENTIAL or AUTH, any case) and the value is at least 8
 * characters that are not a reference (`${VAR}`, `$VAR`, `<placeholder>`). The scanner finds it at each `=`.
 */
export const ENV_RULE = {
  id: 'env-assignment',
  title: '.env-style secret assignment',
  name: /(?:key|token|secret|passw(?:or)?d|pwd|credential|auth)/i,
  /** The value after `=`: optional quote (escaped in JSON), then the value. */
  value: /(?:\\?["'])?([^\s"'\\$<{][^\s"'\\]{7,})/y,
  source: 'dotenv file format; gitleaks generic-api-key (keyword, assignment, value)',
} as const;

/**
 * High-entropy strings in tool results: a run of base64/base64url characters 24 to 256 long, holding a digit, a
 * capital and a small letter, whose Shannon entropy is at least min(4.5, log2(length) - 0.7) bits a character
 * (random keys reach it; words, paths, hex hashes and UUIDs do not).
 */
export const ENTROPY_RULE = {
  id: 'high-entropy-string',
  title: 'high-entropy string in a tool result',
  minLength: 24,
  maxLength: 256,
  maxBits: 4.5,
  belowLog2: 0.7,
  source: "detect-secrets' base64 high-entropy plugin (limit 4.5); gitleaks' entropy checks",
} as const;

/** Every rule id, in the order the scanner reports them. */
export const RULE_IDS: readonly string[] = [...SECRET_RULES.map((r) => r.id), ENV_RULE.id, ENTROPY_RULE.id];

/** A rule's words for its id. */
export function ruleTitle(id: string): string {
  if (id === ENV_RULE.id) return ENV_RULE.title;
  if (id === ENTROPY_RULE.id) return ENTROPY_RULE.title;
  return SECRET_RULES.find((r) => r.id === id)?.title ?? id;
}
