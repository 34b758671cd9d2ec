import { describe, expect, it } from 'vitest';
import { InputGate } from './exec-input.js';

/** The notice a wrapped command prints, as bash would print it. */
const noticeOf = (gate: InputGate): string => /^printf '%s' '([^']*)' >&2\n/.exec(gate.wrap('true'))?.[1] ?? '';

describe('InputGate', () => {
  it('opens once the notice has passed, even in pieces, and keeps the rest of stderr', () => {
    let opened = 0;
    const gate = new InputGate(() => {
      opened += 1;
    });
    const notice = noticeOf(gate);
    expect(notice).toMatch(/^harness-s-stdin-ready-[0-9a-f]{12}\n$/);
    const pieces = [`warning: x\n${notice.slice(0, 10)}`, notice.slice(10), 'after\n', 'more\n'];
    const passed = pieces.map((piece) => gate.filter(Buffer.from(piece)).toString());
    expect(passed.join('')).toBe('warning: x\nafter\nmore\n');
    expect(opened).toBe(1);
    expect(gate.flush().toString()).toBe('');
  });

  it('hands back what it held when the command never started', () => {
    const gate = new InputGate(() => {
      throw new Error('not ready');
    });
    expect(gate.filter(Buffer.from('timeout: fork system call failed\n')).toString()).toBe('');
    expect(gate.flush().toString()).toBe('timeout: fork system call failed\n');
  });
});
