// Each rule of the secret guard against keys in its published format (built from the format, never a live key) and
// near-misses that must not match: one character short, a wrong prefix, inside a longer word, a format's look-alike.
import { describe, expect, it } from 'vitest';
import { ENTROPY_RULE, ENV_RULE, RULE_IDS, SECRET_RULES } from './rules.ts';
import { randomRuns, scanSecrets } from './scan.ts';

/** A deterministic string of `n` characters from `alphabet` (a seeded LCG: the same cases every run). */
function chars(alphabet: string, n: number, seed = 7): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out += alphabet[(x >>> 13) % alphabet.length];
  }
  return out;
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const URLSAFE = `${ALNUM}_-`;
const HEX = '0123456789abcdef';

/** A text as a JSON body holds it (a tool result's content), the way the scanner sees requests. */
const body = (text: string): Buffer =>
  Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: `see: ${text} (end)` }] }));
/** The secrets scanned out of a text, as [rule, value as the body holds it]. */
const found = (text: string, toolResults: string[] = []): [string, string][] => {
  const b = body(text);
  return scanSecrets(b, toolResults).map((f) => [f.rule, b.toString('latin1', f.start, f.end)]);
};

const PEM_BODY = chars(`${ALNUM}+/`, 64, 3);
const CASES: Record<string, { match: string[]; miss: string[] }> = {
  'aws-access-key-id': {
    match: [`AKIA${chars(B32, 16)}`, `ASIA${chars(B32, 16, 9)}`],
    miss: [`AKIA${chars(B32, 15)}`, `XAKIA${chars(B32, 16)}`, `AKIA${chars(B32, 16)}Q`, `AKIA${chars(LOWER, 16)}`],
  },
  'private-key': {
    match: [
      `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n${PEM_BODY}==\n-----END RSA PRIVATE KEY-----`,
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----`,
      `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n-----END PRIVATE KEY-----`,
    ],
    miss: [
      `-----BEGIN PUBLIC KEY-----\n${PEM_BODY}\n-----END PUBLIC KEY-----`,
      `-----BEGIN CERTIFICATE-----\n${PEM_BODY}\n-----END CERTIFICATE-----`,
      '-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----',
      `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END EC PRIVATE KEY-----`,
    ],
  },
  'anthropic-api-key': {
    match: [`sk-ant-api03-${chars(URLSAFE, 93)}AA`, `sk-ant-admin01-${chars(URLSAFE, 93, 4)}AA`],
    miss: [`sk-ant-api03-${chars(URLSAFE, 92)}AA`, `sk-ant-api03-${chars(URLSAFE, 93)}AB`, 'sk-ant-api03-short'],
  },
  'openai-api-key': {
    match: [
      `sk-proj-${chars(URLSAFE, 74)}T3BlbkFJ${chars(URLSAFE, 74, 5)}`,
      `sk-${chars(ALNUM, 20)}T3BlbkFJ${chars(ALNUM, 20, 6)}`,
      `sk-svcacct-${chars(URLSAFE, 58)}T3BlbkFJ${chars(URLSAFE, 58, 8)}`,
    ],
    miss: [`sk-${chars(ALNUM, 48)}`, `task-${chars(ALNUM, 20)}T3BlbkFJ${chars(ALNUM, 20)}`, 'sk-abc***wxyz'],
  },
  'openrouter-api-key': {
    match: [`sk-or-v1-${chars(HEX, 64)}`],
    miss: [`sk-or-v1-${chars(HEX, 63)}`, `sk-or-v1-${chars(HEX, 64)}a`, `sk-or-v2-${chars(HEX, 64)}`],
  },
  'github-token': {
    match: [`ghp_${chars(ALNUM, 36)}`, `ghs_${chars(ALNUM, 36, 2)}`, `gho_${chars(ALNUM, 36, 3)}`],
    miss: [`ghp_${chars(ALNUM, 35)}`, `ghx_${chars(ALNUM, 36)}`, `xghp_${chars(ALNUM, 36)}`, `ghp_${chars(ALNUM, 37)}`],
  },
  'github-fine-grained-pat': {
    match: [`github_pat_${chars(`${ALNUM}_`, 82)}`],
    miss: [`github_pat_${chars(ALNUM, 40)}`, `github_path_${chars(ALNUM, 82)}`],
  },
  'gitlab-token': {
    match: [`glpat-${chars(URLSAFE, 20)}`],
    miss: [`glpat-${chars(URLSAFE, 19)}`, `glpat-${chars(ALNUM, 21)}`, `gl-pat-${chars(URLSAFE, 20)}`],
  },
  'slack-token': {
    match: [`xoxb-${chars(DIGITS, 12)}-${chars(DIGITS, 12, 3)}-${chars(ALNUM, 24)}`],
    miss: [`xoxb-${chars(ALNUM, 12)}`, `xoxz-${chars(DIGITS, 12)}-${chars(ALNUM, 24)}`, 'xoxb-123-abc'],
  },
  'google-api-key': {
    match: [`AIza${chars(URLSAFE, 35)}`],
    miss: [`AIza${chars(URLSAFE, 34)}`, `AIza${chars(ALNUM, 36)}`, `AIzb${chars(URLSAFE, 35)}`],
  },
  'stripe-key': {
    match: [`sk_live_${chars(ALNUM, 24)}`, `rk_test_${chars(ALNUM, 99, 4)}`],
    miss: [`sk_live_${chars(ALNUM, 23)}`, `pk_live_${chars(ALNUM, 24)}`, `disk_live_${chars(ALNUM, 24)}`],
  },
  'npm-token': {
    match: [`npm_${chars(ALNUM, 36)}`],
    miss: [`npm_${chars(ALNUM, 35)}`, `npm_${chars(ALNUM, 37)}`, `pnpm_${chars(ALNUM, 36)}`],
  },
  'huggingface-token': {
    match: [`hf_${chars(UPPER + LOWER, 34)}`],
    miss: [`hf_${chars(UPPER + LOWER, 33)}`, `hf_${chars(UPPER + LOWER, 35)}`, `shf_${chars(UPPER + LOWER, 34)}`],
  },
  'groq-api-key': {
    match: [`gsk_${chars(ALNUM, 52)}`],
    miss: [`gsk_${chars(ALNUM, 51)}`, `gsk_${chars(ALNUM, 53)}`],
  },
  'xai-api-key': {
    match: [`xai-${chars(ALNUM, 80)}`],
    miss: [`xai-${chars(ALNUM, 79)}`, `xai-grok-4`],
  },
  'sendgrid-api-key': {
    match: [`SG.${chars(URLSAFE, 22)}.${chars(URLSAFE, 43, 5)}`],
    miss: [`SG.${chars(URLSAFE, 21)}.${chars(URLSAFE, 43)}`, 'SG.example'],
  },
  'pypi-token': {
    match: [`pypi-AgEIcHlwaS5vcmc${chars(URLSAFE, 70)}`],
    miss: [`pypi-AgEIcHlwaS5vcmc${chars(URLSAFE, 20)}`, `pypi-${chars(URLSAFE, 80)}`],
  },
  jwt: {
    match: [
      // {"alg":"HS256","typ":"JWT"}.{"sub":"1234567890"}.signature
      `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${chars(URLSAFE, 43)}`,
    ],
    miss: ['eyJhbGciOiJIUzI1NiJ9', `eyJhbGciOiJIUzI1NiJ9.notjson.${chars(URLSAFE, 43)}`, 'keyJ'],
  },
};

describe('secret guard rules', () => {
  it('every rule has its cases here', () => {
    expect(Object.keys(CASES).sort()).toEqual(SECRET_RULES.map((r) => r.id).sort());
    expect(RULE_IDS).toContain(ENV_RULE.id);
    expect(RULE_IDS).toContain(ENTROPY_RULE.id);
  });

  for (const rule of SECRET_RULES) {
    describe(rule.id, () => {
      const c = CASES[rule.id]!;
      for (const key of c.match) {
        it(`finds ${key.slice(0, 24)}…`, () => {
          const got = found(key);
          expect(got.map((g) => g[0])).toEqual([rule.id]);
          expect(JSON.parse(`"${got[0]![1]}"`)).toBe(key);
        });
      }
      for (const near of c.miss) {
        it(`does not take ${JSON.stringify(near.slice(0, 30))}… for a key`, () => {
          expect(found(near).filter((g) => g[0] === rule.id)).toEqual([]);
        });
      }
    });
  }

  describe(ENV_RULE.id, () => {
    it('finds NAME=value lines of .env files, the value only', () => {
      const value = chars(ALNUM, 32);
      const env = `DEBUG=true\nDATABASE_PASSWORD=${value}\nexport STRIPE_KEY="${chars(ALNUM, 20, 3)}"\napi_token=${chars(ALNUM, 12, 4)}`;
      const got = found(env);
      expect(got.map((g) => g[0])).toEqual([ENV_RULE.id, ENV_RULE.id, ENV_RULE.id]);
      expect(got[0]![1]).toBe(value);
      expect(got[1]![1]).toBe(chars(ALNUM, 20, 3));
    });
    it('leaves names that are not credentials, references, placeholders and code', () => {
      for (const text of [
        `PORT=${chars(DIGITS, 8)}`,
        'API_KEY=${API_KEY}',
        'SECRET_KEY=$SECRET',
        'API_KEY=<your-key-here>',
        'PASSWORD=xxxxxxxxxxxx',
        `const tokenCount = ${chars(ALNUM, 12)}`,
        `if (key==${chars(ALNUM, 12)})`,
        'API_KEY=short',
      ])
        expect(found(text), text).toEqual([]);
    });
  });

  describe(ENTROPY_RULE.id, () => {
    const key = chars(`${ALNUM}+/`, 40, 11);
    it('finds a random-looking run in a tool result, and only there', () => {
      expect(found(`aws_secret_access_key: ${key}`, [`aws_secret_access_key: ${key}`])).toEqual([
        [ENTROPY_RULE.id, key],
      ]);
      expect(found(`id ${key}`, [])).toEqual([]);
    });
    it('leaves words, paths, hex hashes, UUIDs and base64 of text', () => {
      for (const text of [
        'src/components/ProviderChain.tsx',
        'c147d86b-db20-472f-9141-6de441d57554',
        '0123456789abcdef0123456789abcdef01234567',
        'internationalizationLocalizationAndAccessibility',
        'TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu',
      ])
        expect(randomRuns(text), text).toBeNull();
    });
  });

  it('finds nothing in real Claude Code requests (no false alarm on a whole session turn)', async () => {
    const { readFileSync } = await import('node:fs');
    for (const file of [
      'test/fixtures/real/claude-code/tool-loop-sonnet.json',
      'test/fixtures/compat/claude-code/2.1.328/tool-result-turn.json',
      'test/fixtures/compat/claude-code/2.0.77/tool-result-turn.json',
    ]) {
      const f = JSON.parse(readFileSync(file, 'utf8')) as { body?: unknown; request?: { body?: unknown } };
      const b = Buffer.from(JSON.stringify(f.body ?? f.request?.body ?? f.request));
      expect(scanSecrets(b, []), file).toEqual([]);
    }
  });
});
