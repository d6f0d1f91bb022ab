// Test support (a node --import preload): on SIGUSR2 the process writes the built-in modules it has loaded
// (process.moduleLoadList) to the file SWITCHBOARD_TEST_MODULE_LIST names, then a line to stdout saying so.
import { writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  writeFileSync(process.env.SWITCHBOARD_TEST_MODULE_LIST, JSON.stringify(process.moduleLoadList));
  process.stdout.write('module list written\n');
});
