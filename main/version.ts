// Switchboard's version: package.json's, the one place it is written.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** How this process runs: the compiled build (dist/, as `npm run serve` and the app run it) or the TypeScript sources
 * through tsx (`npm run dev`, tests). Said in serve's banner. */
export const RUNTIME: 'compiled' | 'source' = import.meta.url.includes('/dist/') ? 'compiled' : 'source';
