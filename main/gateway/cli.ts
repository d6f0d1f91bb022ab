// `switchboard keys create|list|revoke --gateway|--pat`: gateway keys and personal access tokens (never printed again).
import type { LimitValues } from '../../shared/config.ts';
import { createGatewayKey, gatewayKeysFile, parseExpiry, readGatewayKeys, revokeGatewayKey } from './keys.ts';
import type { CredentialKind } from './keys.ts';

export type GatewayKeyFlags = {
  pat?: boolean;
  name?: string;
  models?: string;
  expires?: string;
  rpm?: string;
  tpm?: string;
  concurrency?: string;
};

function intFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, 0 for no limit (got "${v}")`);
  return n;
}

/** Runs the command; returns what to print on stdout and stderr, or throws an Error whose message says the fix. */
export async function gatewayKeysCommand(
  configDir: string,
  sub: string | undefined,
  id: string | undefined,
  f: GatewayKeyFlags,
): Promise<{ out: string; err: string }> {
  const file = gatewayKeysFile(configDir);
  const kind: CredentialKind = f.pat ? 'pat' : 'key';
  if (sub === 'create') {
    if (!f.name)
      throw new Error(
        `usage: switchboard keys create ${f.pat ? '--pat' : '--gateway'} --name NAME [--models "gpt-*,o3*"] [--expires 30d] [--rpm N] [--tpm N] [--concurrency N]`,
      );
    const limits: LimitValues = {};
    const rpm = intFlag('rpm', f.rpm);
    const tpm = intFlag('tpm', f.tpm);
    const concurrency = intFlag('concurrency', f.concurrency);
    if (rpm !== undefined) limits.rpm = rpm;
    if (tpm !== undefined) limits.tpm = tpm;
    if (concurrency !== undefined) limits.concurrency = concurrency;
    const expires = f.expires ? parseExpiry(f.expires) : kind === 'pat' ? parseExpiry('90d') : null;
    const models = f.models
      ? f.models
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean)
      : [];
    const { secret, record } = await createGatewayKey(file, { kind, name: f.name, models, expiresAt: expires, limits });
    const what = kind === 'pat' ? 'personal access token' : 'gateway key';
    return {
      out: `${secret}\n`,
      err: `created ${what} ${record.id} "${record.name}"${record.expires_at ? `, expires ${record.expires_at}` : ''} in ${file}; it is shown only now, store it safely\n`,
    };
  }
  if (sub === 'list') {
    const all = (await readGatewayKeys(file)).filter((k) => (f.pat ? k.kind === 'pat' : true));
    if (all.length === 0)
      return {
        out: `no gateway keys in ${file}; create one with: switchboard keys create --gateway --name NAME\n`,
        err: '',
      };
    const rows = all.map((k) =>
      [
        k.id,
        k.kind,
        k.name,
        `${k.hint}…`,
        k.models.join(',') || '*',
        k.expires_at ?? 'never',
        k.revoked_at ? `revoked ${k.revoked_at}` : 'active',
      ].join('\t'),
    );
    return { out: `${rows.join('\n')}\n`, err: '' };
  }
  if (sub === 'revoke') {
    if (!id)
      throw new Error(
        'usage: switchboard keys revoke --gateway <id> (ids are shown by: switchboard keys list --gateway)',
      );
    if (!(await revokeGatewayKey(file, id)))
      throw new Error(`no gateway key "${id}" in ${file}; see: switchboard keys list --gateway`);
    return { out: `revoked ${id}\n`, err: '' };
  }
  throw new Error(`Unknown keys command "${sub ?? ''}"; use create, list or revoke with --gateway or --pat.`);
}
