// The node flags `npm run serve` starts Switchboard with, read from package.json's serve script (scripts/build.mjs
// reads them the same way to warm the code cache), so tests and benches start the compiled build exactly as a user's
// `npm run serve` does.
// @ts-expect-error a plain ES module script without types
import { serveNodeFlags as fromPackageJson } from '../../scripts/build.mjs';

/** What package.json's serve script puts between `node` and the script it runs
 * (`node --max-semi-space-size=8 --liftoff-only bin/switchboard.mjs serve` → ['--max-semi-space-size=8',
 * '--liftoff-only']). */
export function serveNodeFlags(): string[] {
  return (fromPackageJson as () => string[])();
}
