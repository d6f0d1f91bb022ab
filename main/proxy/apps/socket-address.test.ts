import { describe, expect, it } from 'vitest';
import { canonicalAddress, isLoopbackAddress, isSameEndpoint, parseEndpoint } from './socket-address.ts';

describe('canonicalAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['[::1]', '::1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:7f00:1', '127.0.0.1'],
    ['fe80::1%lo0', 'fe80::1'],
    ['*', null],
    ['localhost', null],
    ['', null],
  ])('%s → %s', (input, expected) => {
    expect(canonicalAddress(input)).toBe(expected);
  });
});

describe('isLoopbackAddress', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '[::1]'])('%s is loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });
  it.each(['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.5', 'fe80::1', '::', '0.0.0.0', 'localhost', ''])(
    '%s is not loopback',
    (address) => {
      expect(isLoopbackAddress(address)).toBe(false);
    },
  );
});

describe('parseEndpoint', () => {
  it.each([
    ['127.0.0.1:52344', { address: '127.0.0.1', port: 52344 }],
    ['[::1]:11434', { address: '::1', port: 11434 }],
    ['[::ffff:127.0.0.1]:80', { address: '127.0.0.1', port: 80 }],
    ['*:11434', { address: null, port: 11434 }],
    ['0.0.0.0:0', { address: null, port: 0 }],
    ['[::]:135', { address: null, port: 135 }],
    ['*:*', { address: null, port: 0 }],
  ])('%s', (text, expected) => {
    expect(parseEndpoint(text)).toEqual(expected);
  });

  it.each(['', 'nonsense', '127.0.0.1', '127.0.0.1:99999'])('rejects %j', (text) => {
    expect(parseEndpoint(text)).toBeNull();
  });
});

describe('isSameEndpoint', () => {
  it('compares addresses in any spelling', () => {
    expect(isSameEndpoint({ address: '127.0.0.1', port: 80 }, '::ffff:127.0.0.1', 80)).toBe(true);
    expect(isSameEndpoint({ address: '::1', port: 80 }, '0:0:0:0:0:0:0:1', 80)).toBe(true);
    expect(isSameEndpoint({ address: '127.0.0.1', port: 80 }, '127.0.0.1', 81)).toBe(false);
    expect(isSameEndpoint({ address: null, port: 80 }, '0.0.0.0', 80)).toBe(false);
  });
});
