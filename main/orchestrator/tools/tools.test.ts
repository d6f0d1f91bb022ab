import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate } from './calculator.ts';
import { confine, listFiles, readFile, writeFile } from './files.ts';
import { httpGet, isPrivateAddress } from './http-get.ts';

describe('calculator', () => {
  it('parses precedence, powers, unary minus and functions without eval', () => {
    expect(evaluate('2 + 3 * 4')).toBe(14);
    expect(evaluate('(2 + 3) * 4')).toBe(20);
    expect(evaluate('-2 ^ 2')).toBe(-4);
    expect(evaluate('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluate('sqrt(16) + max(1, 7, 3) % 4')).toBe(7);
    expect(() => evaluate('process.exit(1)')).toThrow();
    expect(() => evaluate('1 / 0')).toThrow(/finite/);
    expect(() => evaluate('(1 + 2')).toThrow(/expected/);
  });
});

describe('workspace files', () => {
  it('reads, writes and lists inside the workspace and refuses to leave it', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'sb-ws-'));
    expect(await writeFile(root, 'a/b.txt', 'hi')).toMatch(/wrote 2 bytes/);
    expect(await readFile(root, 'a/b.txt')).toBe('hi');
    expect(await listFiles(root, '.')).toBe('a/');
    await expect(confine(root, '../x')).rejects.toThrow(/leaves/);
    await expect(confine(root, '/etc/passwd')).rejects.toThrow(/relative/);
    await fs.symlink('/etc', path.join(root, 'link'));
    await expect(readFile(root, 'link/passwd')).rejects.toThrow(/leaves/);
    await fs.rm(root, { recursive: true, force: true });
  });
});

describe('http_get', () => {
  it('refuses loopback and private ranges by default', async () => {
    expect(isPrivateAddress('127.0.0.1')).toBe(true);
    expect(isPrivateAddress('192.168.1.4')).toBe(true);
    expect(isPrivateAddress('::ffff:10.0.0.1')).toBe(true);
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    const limits = { allow_private: false, allow_hosts: [], max_bytes: 100, timeout_ms: 1000 };
    await expect(httpGet('http://127.0.0.1:1/', limits)).rejects.toThrow(/private/);
    await expect(httpGet('http://localhost:1/', limits)).rejects.toThrow(/private/);
    await expect(httpGet('file:///etc/passwd', limits)).rejects.toThrow(/http/);
  });
});
