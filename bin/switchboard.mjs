#!/usr/bin/env node
// The `switchboard` command: runs the TypeScript CLI through tsx (no build step needed).
import { register } from 'tsx/esm/api';

register();
await import('../main/cli.ts');
