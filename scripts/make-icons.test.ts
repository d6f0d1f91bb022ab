// The committed icons are what Windows and macOS need: assets/icon.ico holds 16, 20, 24, 32, 48 px 32-bit bitmaps
// (their AND masks agreeing with the alpha) and a 256 px PNG; assets/icon-1024.png is 1024 px (macOS); and the
// encoder writes back exactly the pixels it is given.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ICO_SIZES, icoBitmap, icoFile } from './make-icons.ts';

const ASSETS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../assets');

type Entry = { size: number; bitCount: number; data: Buffer };
function readIco(buf: Buffer): Entry[] {
  expect(buf.readUInt16LE(0)).toBe(0);
  expect(buf.readUInt16LE(2)).toBe(1); // an icon, not a cursor
  const n = buf.readUInt16LE(4);
  return Array.from({ length: n }, (_, i) => {
    const e = 6 + 16 * i;
    const [size, offset, length] = [buf[e] || 256, buf.readUInt32LE(e + 12), buf.readUInt32LE(e + 8)];
    expect(buf[e + 1] || 256).toBe(size);
    return { size, bitCount: buf.readUInt16LE(e + 6), data: buf.subarray(offset, offset + length) };
  });
}
const pngSize = (png: Buffer) => {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
};
/** A bitmap entry back to top-down RGBA, and its mask bits (1 = transparent). */
function decodeBitmap(data: Buffer, size: number): { rgba: number[]; mask: boolean[] } {
  expect([data.readUInt32LE(0), data.readInt32LE(4), data.readInt32LE(8), data.readUInt16LE(14)]).toEqual([
    40,
    size,
    size * 2,
    32,
  ]);
  const maskRow = Math.ceil(size / 32) * 4;
  const rgba: number[] = [];
  const mask: boolean[] = [];
  for (let y = 0; y < size; y++) {
    const row = 40 + (size - 1 - y) * size * 4;
    const m = 40 + size * size * 4 + (size - 1 - y) * maskRow;
    for (let x = 0; x < size; x++) {
      const p = row + x * 4;
      rgba.push(data[p + 2]!, data[p + 1]!, data[p]!, data[p + 3]!);
      mask.push((data[m + (x >> 3)]! & (0x80 >> (x & 7))) !== 0);
    }
  }
  return { rgba, mask };
}

describe('icons', () => {
  it('assets/icon.ico has every size Windows asks for: bitmaps up to 48 px, a PNG at 256', async () => {
    const entries = readIco(await fs.readFile(path.join(ASSETS, 'icon.ico')));
    expect(entries.map((e) => e.size)).toEqual([...ICO_SIZES]);
    for (const e of entries) {
      expect(e.bitCount).toBe(32);
      if (e.size === 256) {
        expect(pngSize(e.data)).toEqual([256, 256]);
        continue;
      }
      const { rgba, mask } = decodeBitmap(e.data, e.size);
      mask.forEach((transparent, i) => expect(transparent).toBe(rgba[i * 4 + 3] === 0));
      const mid = ((e.size >> 1) * e.size + (e.size >> 2)) * 4; // inside the square, left of the glyphs: dark fill
      expect(rgba.slice(mid, mid + 4)).toEqual([0x1f, 0x29, 0x37, 255]);
      expect(mask[0]).toBe(true); // the corner outside the rounded square is transparent
    }
  });

  it('assets/icon-1024.png is the 1024 px icon macOS builds from; the tray template images are there', async () => {
    expect(pngSize(await fs.readFile(path.join(ASSETS, 'icon-1024.png')))).toEqual([1024, 1024]);
    expect(pngSize(await fs.readFile(path.join(ASSETS, 'trayTemplate.png')))).toEqual([22, 22]);
    expect(pngSize(await fs.readFile(path.join(ASSETS, 'trayTemplate@2x.png')))).toEqual([44, 44]);
  });

  it('the encoder writes back the pixels it was given, with the mask from the alpha', () => {
    const rgba = Uint8Array.from([255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 255, 128, 1, 2, 3, 255]); // 2×2
    expect(decodeBitmap(icoBitmap(2, rgba), 2)).toEqual({
      rgba: Array.from(rgba),
      mask: [false, true, false, false],
    });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000001000000010008060000', 'hex');
    const entries = readIco(
      icoFile([
        { size: 2, rgba, png: Buffer.alloc(0) },
        { size: 256, rgba, png },
      ]),
    );
    expect(entries.map((e) => [e.size, e.data.length])).toEqual([
      [2, 40 + 16 + 8],
      [256, png.length],
    ]);
  });
});
