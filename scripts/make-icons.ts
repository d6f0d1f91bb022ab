// `npm run icons`: the installers' and the Windows tray's icons, drawn from assets/icon.svg by the system Chromium
// (playwright-core, as the e2e tests use it; nothing is downloaded): assets/icon.ico (16, 20, 24, 32, 48 px as 32-bit
// bitmaps, which every Windows reader and NSIS take, and 256 px as PNG) and assets/icon-1024.png (macOS). The files
// are committed; run this again after changing icon.svg.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from '../e2e/chromium.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ICO_SIZES = [16, 20, 24, 32, 48, 256] as const;

type Raster = { size: number; rgba: Uint8Array; png: Buffer };

/** One ICO image as a 32-bit BITMAPINFOHEADER bitmap (rows bottom-up, BGRA) with its 1-bit AND mask. */
export function icoBitmap(size: number, rgba: Uint8Array): Buffer {
  const maskRow = Math.ceil(size / 32) * 4;
  const out = Buffer.alloc(40 + size * size * 4 + maskRow * size);
  out.writeUInt32LE(40, 0);
  out.writeInt32LE(size, 4);
  out.writeInt32LE(size * 2, 8); // colour bitmap and mask, one on top of the other
  out.writeUInt16LE(1, 12);
  out.writeUInt16LE(32, 14);
  out.writeUInt32LE(size * size * 4 + maskRow * size, 20);
  for (let y = 0; y < size; y++) {
    const row = 40 + (size - 1 - y) * size * 4;
    const mask = 40 + size * size * 4 + (size - 1 - y) * maskRow;
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      out[row + x * 4] = rgba[i + 2]!;
      out[row + x * 4 + 1] = rgba[i + 1]!;
      out[row + x * 4 + 2] = rgba[i]!;
      out[row + x * 4 + 3] = rgba[i + 3]!;
      if (rgba[i + 3] === 0) out[mask + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  return out;
}

/** An .ico file: the directory, then each image (PNG from 256 px up, a bitmap below). */
export function icoFile(images: Raster[]): Buffer {
  const blobs = images.map((r) => (r.size >= 256 ? r.png : icoBitmap(r.size, r.rgba)));
  const head = Buffer.alloc(6 + 16 * images.length);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(images.length, 4);
  let offset = head.length;
  images.forEach((r, i) => {
    const e = 6 + 16 * i;
    head[e] = r.size >= 256 ? 0 : r.size; // 0 means 256
    head[e + 1] = r.size >= 256 ? 0 : r.size;
    head.writeUInt16LE(1, e + 4);
    head.writeUInt16LE(32, e + 6);
    head.writeUInt32LE(blobs[i]!.length, e + 8);
    head.writeUInt32LE(offset, e + 12);
    offset += blobs[i]!.length;
  });
  return Buffer.concat([head, ...blobs]);
}

async function rasterize(svg: string, sizes: readonly number[]): Promise<Raster[]> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH');
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const out: Raster[] = [];
    for (const size of sizes) {
      const r = await page.evaluate(
        async ({ svg, size }) => {
          // In the page: the DOM's Image and canvas (this project's tsconfig has no DOM types).
          type Ctx = {
            drawImage(i: unknown, x: number, y: number, w: number, h: number): void;
            getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
          };
          const { Image, document } = globalThis as unknown as {
            Image: new (w: number, h: number) => { src: string; decode(): Promise<void> };
            document: {
              createElement(tag: 'canvas'): {
                width: number;
                height: number;
                getContext(kind: '2d'): Ctx | null;
                toDataURL(type: string): string;
              };
            };
          };
          const img = new Image(size, size);
          img.src = `data:image/svg+xml;base64,${btoa(svg)}`;
          await img.decode();
          const canvas = document.createElement('canvas');
          canvas.width = canvas.height = size;
          const ctx = canvas.getContext('2d')!;
          ctx.drawImage(img, 0, 0, size, size);
          return {
            rgba: Array.from(ctx.getImageData(0, 0, size, size).data),
            png: canvas.toDataURL('image/png').split(',')[1]!,
          };
        },
        { svg, size },
      );
      out.push({ size, rgba: Uint8Array.from(r.rgba), png: Buffer.from(r.png, 'base64') });
    }
    return out;
  } finally {
    await browser.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const svg = await fs.readFile(path.join(ROOT, 'assets/icon.svg'), 'utf8');
  const [big, ...icons] = await rasterize(svg, [1024, ...ICO_SIZES]);
  await fs.writeFile(path.join(ROOT, 'assets/icon.ico'), icoFile(icons));
  await fs.writeFile(path.join(ROOT, 'assets/icon-1024.png'), big!.png);
  process.stdout.write('wrote assets/icon.ico (16, 20, 24, 32, 48, 256 px) and assets/icon-1024.png\n');
}
