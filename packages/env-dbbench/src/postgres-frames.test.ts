import { describe, expect, it } from 'vitest';
import { MessageGate, type OversizedMessage } from './postgres-frames.js';

/** One backend message: type byte, int32 length (counting itself), body. */
const message = (type: string, body: Buffer | string): Buffer => {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(bytes.length + 4, 1);
  return Buffer.concat([header, bytes]);
};

/** An ErrorResponse with severity, code and message fields. */
const errorMessage = (text: string): Buffer =>
  message('E', Buffer.concat([Buffer.from(`SERROR\0C22P02\0M${text}\0`), Buffer.from([0])]));

/** Feeds `stream` to a gate in pieces of `size` bytes; returns what passed and what was reported. */
function run(stream: Buffer, size: number, max = 1024): { passed: Buffer; reports: OversizedMessage[] } {
  const gate = new MessageGate(max);
  const reports: OversizedMessage[] = [];
  gate.onOversized = (report) => reports.push(report);
  const out: Buffer[] = [];
  for (let offset = 0; offset < stream.length; offset += size)
    out.push(gate.filter(stream.subarray(offset, offset + size)));
  return { passed: Buffer.concat(out), reports };
}

describe('MessageGate', () => {
  const small = [message('T', 'columns'), message('D', 'row one'), message('C', 'SELECT 1'), message('Z', 'T')];

  it('passes messages within the bound unchanged, however the stream is split', () => {
    const stream = Buffer.concat(small);
    for (const size of [1, 2, 3, 5, 7, 64, stream.length]) {
      const { passed, reports } = run(stream, size);
      expect(passed.equals(stream)).toBe(true);
      expect(reports).toEqual([]);
    }
  });

  it('skips a row over the bound, keeping the messages around it, and reports it once', () => {
    const huge = message('D', Buffer.alloc(5000, 120));
    const stream = Buffer.concat([small[0], small[1], huge, small[1], small[2], small[3]] as Buffer[]);
    const expected = Buffer.concat([small[0], small[1], small[1], small[2], small[3]] as Buffer[]);
    for (const size of [1, 4, 5, 6, 100, 1029, stream.length]) {
      const { passed, reports } = run(stream, size);
      expect({ size, same: passed.equals(expected) }).toEqual({ size, same: true });
      expect(reports).toEqual([{ type: 'D', length: 5004, action: 'skipped' }]);
    }
  });

  it('cuts an error over the bound to a valid error message that keeps its code', () => {
    const stream = Buffer.concat([errorMessage('x'.repeat(10_000)), small[3]] as Buffer[]);
    for (const size of [1, 3, 100, stream.length]) {
      const { passed, reports } = run(stream, size);
      expect(reports).toEqual([{ type: 'E', length: stream.length - 6 - 1, action: 'cut' }]);
      // The cut message: its length field matches its body, which ends its last field and the field list.
      const length = passed.readUInt32BE(1);
      expect(passed.length).toBe(1 + length + (small[3] as Buffer).length);
      const body = passed.subarray(5, 1 + length);
      expect(body.subarray(-2)).toEqual(Buffer.from([0, 0]));
      expect(body.toString('latin1')).toMatch(/^SERROR\0C22P02\0Mx+\0\0$/);
      expect(passed.subarray(1 + length).equals(small[3] as Buffer)).toBe(true);
    }
  });

  it('passes messages whose size the server bounds, and refuses a bound too small for the protocol', () => {
    const description = message('T', Buffer.alloc(3000, 97));
    expect(run(description, 10).passed.equals(description)).toBe(true);
    expect(() => new MessageGate(100)).toThrow(/at least 1024/);
  });
});
