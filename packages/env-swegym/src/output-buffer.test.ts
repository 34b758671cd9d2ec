import { describe, expect, it } from 'vitest';
import { cutHeadAndTail, HeadTailBuffer } from './output-buffer.js';

describe('HeadTailBuffer', () => {
  it('keeps short output whole', () => {
    const buffer = new HeadTailBuffer(100);
    buffer.push('hello ');
    buffer.push(Buffer.from('world'));
    expect(buffer.text()).toBe('hello world');
    expect(buffer.truncatedChars).toBe(0);
  });

  it('keeps the head and the tail of long output and counts what was cut', () => {
    const buffer = new HeadTailBuffer(10);
    for (let index = 0; index < 100; index += 1) buffer.push(String(index % 10));
    const text = buffer.text();
    expect(text.startsWith('01234')).toBe(true);
    expect(text.endsWith('56789')).toBe(true);
    expect(buffer.truncatedChars).toBe(90);
    expect(text).toContain('[... 90 characters elided ...]');
  });

  it('decodes a character split across chunks', () => {
    const bytes = Buffer.from('é€', 'utf8');
    const buffer = new HeadTailBuffer();
    for (const byte of bytes) buffer.push(Buffer.from([byte]));
    expect(buffer.text()).toBe('é€');
  });

  it('stays bounded in memory for huge output', () => {
    const buffer = new HeadTailBuffer(1000);
    const chunk = 'x'.repeat(100_000);
    for (let index = 0; index < 50; index += 1) buffer.push(chunk);
    expect(buffer.text().length).toBeLessThan(1100);
    expect(buffer.truncatedChars).toBe(5_000_000 - 1000);
  });
});

describe('cutHeadAndTail', () => {
  it('cuts a finished text the same way', () => {
    const { text, truncatedChars } = cutHeadAndTail(`${'a'.repeat(50)}${'b'.repeat(50)}`, 20);
    expect(truncatedChars).toBe(80);
    expect(text.startsWith('a'.repeat(10))).toBe(true);
    expect(text.endsWith('b'.repeat(10))).toBe(true);
  });
});
