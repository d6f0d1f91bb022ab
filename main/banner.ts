// What `switchboard serve` prints at start (main/cli.ts). The UI link carries the admin token only when a person is
// reading: stdout a terminal and no --quiet-token. Under systemd, Docker or any log collector stdout is not a
// terminal, so the banner names the token file instead and the token never lands in a journal (issue 36).
import path from 'node:path';

export type BannerFacts = {
  version: string;
  url: string;
  configFile: string;
  /** The folder beside config.json that holds `admin-token`. */
  dir: string;
  adminToken: string;
  runtime: string;
  /** process.stdout.isTTY. */
  tty: boolean;
  /** --quiet-token. */
  quietToken: boolean;
};

/** Whether the banner may print the admin token (in the UI link). */
export const bannerShowsToken = (f: Pick<BannerFacts, 'tty' | 'quietToken'>): boolean => f.tty && !f.quietToken;

export function serveBanner(f: BannerFacts): string {
  const tokenFile = path.join(f.dir, 'admin-token');
  const ui = bannerShowsToken(f)
    ? `${f.url}/ui/?token=${f.adminToken}`
    : `${f.url}/ui/ (sign in with the token in ${tokenFile}; open ${f.url}/ui/?token=<that token>)`;
  return (
    `Switchboard ${f.version} listening on ${f.url}\n` +
    `  OpenAI-compatible base URL: ${f.url}/v1\n` +
    `  config: ${f.configFile}\n` +
    `  admin API: ${f.url}/admin/v1 (token in ${tokenFile})\n` +
    `  UI: ${ui}\n` +
    `  runtime: ${f.runtime}\n`
  );
}
