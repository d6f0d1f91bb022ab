// What of Switchboard's own environment an MCP server may get (issue 33, item 1). A server's `${VAR}` references (in
// command, args, env, cwd, url, headers) are expanded only for the variables its `env_passthrough` lists, and a stdio
// server's environment gets those variables too (on top of the SDK's minimal one: HOME, PATH, USER...). A provider
// key's variable is refused even when listed: the variables config.json's `env:` values name (providers' api_key,
// gateway.jwt.secret), the variables of the well-known provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY...), every
// SWITCHBOARD_* variable, and any variable whose value is one of the configured secrets. A server that refers to a
// refused variable does not start, and its error names each one and why.
import { MIN_SECRET } from '../../observability/redact.ts';
import type { McpServerConfig } from '../../../shared/config.ts';

/** What a server may never be given, read when it starts. */
export type ProtectedEnv = {
  /** Variable names config.json's `env:NAME` values name (providers' keys and headers, the gateway's JWT secret). */
  names: Iterable<string>;
  /** The configured secrets' values (providers' keys, credential headers, the JWT secret, the admin token). */
  values: Iterable<string | null | undefined>;
};

export const NO_PROTECTED_ENV: ProtectedEnv = { names: [], values: [] };

/** `${VAR}`, `${VAR:-default}` (Claude Code's .mcp.json) and `${env:VAR}` (Cursor's mcp.json). */
export const VAR_REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The variables of the LLM providers' keys, as their SDKs and CLIs read them, and Switchboard's own. */
const PROVIDER_KEY_VAR =
  /^(?:SWITCHBOARD_\w+|(?:OPENAI|AZURE_OPENAI|AZURE|ANTHROPIC|CLAUDE|GEMINI|GOOGLE|GOOGLE_GENERATIVE_AI|VERTEX|GROQ|MISTRAL|DEEPSEEK|XAI|GROK|OPENROUTER|TOGETHER|TOGETHERAI|FIREWORKS|PERPLEXITY|PPLX|COHERE|CO|CEREBRAS|NVIDIA|NVAPI|NIM|HF|HUGGINGFACE|HUGGING_FACE_HUB|REPLICATE|VOYAGE|AI21|MOONSHOT|DASHSCOPE|QWEN|ZHIPU|ZAI|GLM|SAMBANOVA|NEBIUS|HYPERBOLIC|LITELLM|OLLAMA|LMSTUDIO|DEEPINFRA|ANYSCALE|OCTOAI|LEPTON|NOVITA|BASETEN|MODAL|RUNPOD|AIMLAPI|KIMI|MINIMAX|BEDROCK)_(?:API_KEY|KEY|AUTH_TOKEN|API_TOKEN|TOKEN|SECRET|ACCESS_TOKEN)|ANTHROPIC_AUTH_TOKEN|CLAUDE_CODE_OAUTH_TOKEN|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|AWS_BEARER_TOKEN_BEDROCK|HF_TOKEN|HUGGING_FACE_HUB_TOKEN|GOOGLE_APPLICATION_CREDENTIALS)$/;

/** A variable of a well-known provider key (OPENAI_API_KEY...) or of Switchboard's own (SWITCHBOARD_*). */
export const isProviderKeyVar = (name: string): boolean => PROVIDER_KEY_VAR.test(name);

/** Why a variable is refused (null: it may be given when the server lists it). */
function refusal(name: string, value: string | undefined, protectedEnv: ProtectedEnv): string | null {
  if (PROVIDER_KEY_VAR.test(name)) return "a provider key's variable";
  for (const n of protectedEnv.names) if (n === name) return "a variable config.json's env: values name";
  if (value !== undefined && value.length >= MIN_SECRET)
    for (const v of protectedEnv.values) if (v === value) return 'its value is one of the configured secrets';
  return null;
}

/** The variables referred to in a text. */
export function referencedVars(text: string): string[] {
  return [...text.matchAll(VAR_REFERENCE)].map((m) => m[1]!);
}

export type ServerEnvironment = {
  /** A setting with its allowed `${VAR}`s expanded (a refused one becomes "", and is in `refused`). */
  expand(text: string): string;
  /** The listed variables a stdio server's environment gets (those set and not refused). */
  passed: Record<string, string>;
  /** Each refused variable and why. */
  refused: Map<string, string>;
  /** Allowed variables that are not set (expanded to "" or their default). */
  missing: Set<string>;
};

/** What this server may have of `env`, Switchboard's environment. */
export function serverEnvironment(
  c: Pick<McpServerConfig, 'env_passthrough'>,
  env: NodeJS.ProcessEnv,
  protectedEnv: ProtectedEnv,
): ServerEnvironment {
  const listed = new Set(c.env_passthrough ?? []);
  const refused = new Map<string, string>();
  const missing = new Set<string>();
  const passed: Record<string, string> = {};
  for (const name of listed) {
    const why = refusal(name, env[name], protectedEnv);
    if (why) refused.set(name, why);
    else if (env[name] !== undefined) passed[name] = env[name];
  }
  const expand = (text: string): string =>
    text.replace(VAR_REFERENCE, (_m, name: string, def?: string) => {
      if (!listed.has(name)) {
        if (!refused.has(name))
          refused.set(name, refusal(name, env[name], protectedEnv) ?? "not in the server's env_passthrough");
        return '';
      }
      if (refused.has(name)) return '';
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (def !== undefined) return def;
      missing.add(name);
      return '';
    });
  return { expand, passed, refused, missing };
}

/** The refusal as one sentence naming each variable, why, and the fix (null: none refused). */
export function refusedText(server: string, refused: Map<string, string>): string | null {
  if (refused.size === 0) return null;
  const keys = [...refused].filter(([, why]) => !why.startsWith('not in'));
  const unlisted = [...refused].filter(([, why]) => why.startsWith('not in')).map(([n]) => n);
  const parts: string[] = [];
  if (keys.length)
    parts.push(
      `${keys.map(([n, why]) => `\${${n}} (${why})`).join(', ')}: Switchboard never gives its provider keys to MCP ` +
        'servers; put the value the server needs in its own "env" or "headers" in config.json',
    );
  if (unlisted.length)
    parts.push(
      `${unlisted.map((n) => `\${${n}}`).join(', ')} (not in its env_passthrough): add ` +
        `"env_passthrough": ${JSON.stringify(unlisted)} to mcp_servers.${server} to pass ${unlisted.length === 1 ? 'it' : 'them'} from Switchboard's environment`,
    );
  return `it refers to variables of Switchboard's environment it may not have: ${parts.join('; ')}`;
}
