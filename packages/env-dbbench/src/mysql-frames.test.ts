import { describe, expect, it } from 'vitest';
import { PacketGate } from './mysql-frames.js';

/** One protocol piece: 3-byte length, sequence number, payload. */
const piece = (sequence: number, payload: Buffer | string): Buffer => {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const header = Buffer.alloc(4);
  header.writeUIntLE(bytes.length, 0, 3);
  header[3] = sequence;
  return Buffer.concat([header, bytes]);
};

/** Feeds `stream` to a gate in pieces of `size` bytes; returns what passed and the lengths reported. */
function run(stream: Buffer, size: number, max = 1024): { passed: Buffer; reports: number[] } {
  const gate = new PacketGate(max);
  const reports: number[] = [];
  gate.onOversized = (length) => reports.push(length);
  const out: Buffer[] = [];
  for (let offset = 0; offset < stream.length; offset += size) {
    out.push(gate.filter(Buffer.from(stream.subarray(offset, offset + size))));
  }
  return { passed: Buffer.concat(out), reports };
}

describe('PacketGate', () => {
  it('passes packets within the bound unchanged, however the stream is split', () => {
    const stream = Buffer.concat([piece(1, '\x01'), piece(2, 'column'), piece(3, 'row'), piece(4, 'ok')]);
    for (const size of [1, 2, 3, 4, 5, 9, stream.length]) expect(run(stream, size).passed.equals(stream)).toBe(true);
  });

  it('skips a row over the bound and numbers the packets after it as if it had not been sent', () => {
    const stream = Buffer.concat([
      piece(1, '\x01'),
      piece(2, 'column'),
      piece(3, 'row one'),
      piece(4, Buffer.alloc(5000, 120)),
      piece(5, 'row two'),
      piece(6, 'eof'),
    ]);
    const expected = Buffer.concat([
      piece(1, '\x01'),
      piece(2, 'column'),
      piece(3, 'row one'),
      piece(4, 'row two'),
      piece(5, 'eof'),
    ]);
    for (const size of [1, 3, 4, 5, 100, 4000, stream.length]) {
      const { passed, reports } = run(stream, size);
      expect({ size, same: passed.equals(expected) }).toEqual({ size, same: true });
      expect(reports).toEqual([5000]);
    }
  });

  it('skips every piece of a row split in 16 MiB pieces, and starts again with the next command', () => {
    const gate = new PacketGate(4096);
    const reports: number[] = [];
    gate.onOversized = (length) => reports.push(length);
    const first = Buffer.alloc(4);
    first.writeUIntLE(0xffffff, 0, 3);
    first[3] = 2;
    const passed = [
      gate.filter(piece(1, '\x01')),
      gate.filter(first),
      gate.filter(Buffer.alloc(0xffffff, 97)),
      gate.filter(piece(3, Buffer.alloc(10, 98))),
      gate.filter(piece(4, 'eof')),
    ];
    expect(Buffer.concat(passed).equals(Buffer.concat([piece(1, '\x01'), piece(2, 'eof')]))).toBe(true);
    expect(reports).toEqual([0xffffff]);
    gate.newCommand();
    expect(gate.filter(piece(1, 'ok')).equals(piece(1, 'ok'))).toBe(true);
  });
});
