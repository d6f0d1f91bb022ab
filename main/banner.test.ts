import { describe, expect, it } from 'vitest';
import { serveBanner } from './banner.ts';

const facts = {
  version: '9.9.9',
  url: 'http://127.0.0.1:11434',
  configFile: '/var/lib/switchboard/config.json',
  dir: '/var/lib/switchboard',
  adminToken: 'tok-0123456789abcdef',
  runtime: 'compiled (dist/), node v22.0.0',
};

describe('serve banner', () => {
  it('prints the UI link with the admin token on a terminal', () => {
    const b = serveBanner({ ...facts, tty: true, quietToken: false });
    expect(b).toContain('UI: http://127.0.0.1:11434/ui/?token=tok-0123456789abcdef\n');
  });

  it('never prints the token when stdout is not a terminal (a journal) or with --quiet-token: it names the file', () => {
    for (const b of [
      serveBanner({ ...facts, tty: false, quietToken: false }),
      serveBanner({ ...facts, tty: true, quietToken: true }),
    ]) {
      expect(b).not.toContain(facts.adminToken);
      expect(b).toContain(
        'UI: http://127.0.0.1:11434/ui/ (sign in with the token in /var/lib/switchboard/admin-token; ' +
          'open http://127.0.0.1:11434/ui/?token=<that token>)\n',
      );
    }
  });
});
