// The renderer build: renderer/ → dist/renderer, relative asset paths so the same files work at /ui/ and file://.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: path.join(root, 'renderer'),
  base: './',
  plugins: [react()],
  build: { outDir: path.join(root, 'dist/renderer'), emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1000 },
  logLevel: 'warn',
});
