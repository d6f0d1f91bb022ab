import { describe, expect, it } from 'vitest';
import { bareAppName } from './app-name.ts';

describe('bareAppName', () => {
  it.each([
    ['C:\\Users\\me\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe', 'code'],
    ['Code.exe', 'code'],
    ['CODE.EXE', 'code'],
    ['/usr/share/code/code', 'code'],
    ['Cursor Helper', 'cursor helper'],
    ['/Applications/Visual Studio Code.app', 'visual studio code'],
    ['/Applications/Cursor.app/', 'cursor'],
    ['node', 'node'],
    ['python3.12', 'python3.12'],
    ['my.exe.tool', 'my.exe.tool'],
    ['', ''],
  ])('%s → %s', (input, expected) => {
    expect(bareAppName(input)).toBe(expected);
  });
});
