/**
 * A bound on the size of every message a PostgreSQL server sends to an episode connection, applied to
 * the bytes before node-postgres sees them. node-postgres buffers a whole message and then decodes it
 * into one string, so a single huge row (`SELECT repeat('x', 600000000)`) would cost its size in memory
 * and, past V8's longest string, throw out of the socket's data handler. The gate reads the protocol's
 * framing instead (a type byte, then an int32 length that counts itself) and lets a message through
 * only when it is within the bound: a longer row, notice or copy chunk is skipped as it arrives, and a
 * longer error is passed with its fields cut short. Skipped bytes are never kept, so memory stays near
 * the bound whatever the server sends.
 */
import net from 'node:net';

/** What the gate did with a message longer than its bound. */
export interface OversizedMessage {
  /** The message type: `D` a row, `E` an error, `N` a notice, `d` a COPY chunk... */
  type: string;
  /** The message's length as the server announced it, in bytes. */
  length: number;
  /** `skipped`: never reached the driver; `cut`: passed with its body cut short (errors). */
  action: 'skipped' | 'cut';
}

/** Messages that can be skipped without breaking the protocol: rows, notices, notifications, COPY data, settings. */
const skippable = new Set(['D', 'N', 'A', 'd', 'S']);

/** Bytes of an error message's fields kept when it is cut. */
const errorBytesKept = 64 * 1024;

/** The end of a cut error: the field that was cut, then the field list. */
const errorEnd = Buffer.from([0, 0]);

const headerLength = 5;

/**
 * Splits a PostgreSQL server's byte stream into messages and bounds each one (see the module comment).
 * Messages of other types pass whatever their length: the server bounds them (row descriptions,
 * command tags, ready-for-query).
 */
export class MessageGate {
  /** Called for every message over the bound, while the gate handles it. */
  onOversized: ((message: OversizedMessage) => void) | null = null;
  private readonly header = Buffer.alloc(headerLength);
  private headerFill = 0;
  /** Body bytes of the current message still to come. */
  private remaining = 0;
  private mode: 'pass' | 'skip' | 'cut' = 'pass';
  /** Body bytes of a cut message still passed before its end is written. */
  private kept = 0;

  /** `maxMessageBytes`: the longest message passed whole, length field included. */
  constructor(readonly maxMessageBytes: number) {
    if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1024) {
      throw new RangeError(`maxMessageBytes must be an integer of at least 1024, not ${maxMessageBytes}`);
    }
  }

  /** The bytes of `chunk` the driver may see (possibly none), in order. */
  filter(chunk: Buffer): Buffer {
    const out: Buffer[] = [];
    /** Start of the bytes of `chunk` passed as they are, up to the next skip or insertion. */
    let run = 0;
    let position = 0;
    const close = (end: number): void => {
      if (end > run) out.push(chunk.subarray(run, end));
    };
    while (position < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - position);
        this.remaining -= take;
        if (this.mode === 'pass') {
          position += take;
          continue;
        }
        const passed = this.mode === 'cut' ? Math.min(take, this.kept) : 0;
        position += passed;
        this.kept -= passed;
        close(position);
        if (this.mode === 'cut' && this.kept === 0) {
          out.push(errorEnd);
          this.mode = 'skip';
        }
        position += take - passed;
        run = position;
        continue;
      }
      const start = position;
      let type: number;
      let length: number;
      let inChunk = false;
      if (this.headerFill === 0 && chunk.length - position >= headerLength) {
        type = chunk[position] ?? 0;
        length = chunk.readUInt32BE(position + 1);
        position += headerLength;
        inChunk = true;
      } else {
        // A header split between chunks is held back until its length is known.
        close(position);
        const take = Math.min(headerLength - this.headerFill, chunk.length - position);
        chunk.copy(this.header, this.headerFill, position, position + take);
        this.headerFill += take;
        position += take;
        run = position;
        if (this.headerFill < headerLength) continue;
        this.headerFill = 0;
        type = this.header[0] ?? 0;
        length = this.header.readUInt32BE(1);
      }
      const typeName = String.fromCharCode(type);
      this.remaining = Math.max(length - 4, 0);
      const cuttable = typeName === 'E';
      if (length <= this.maxMessageBytes || !(skippable.has(typeName) || cuttable)) {
        this.mode = 'pass';
        if (!inChunk) out.push(Buffer.from(this.header));
        continue;
      }
      if (inChunk) close(start);
      run = position;
      if (cuttable) {
        this.mode = 'cut';
        this.kept = Math.min(errorBytesKept, Math.floor(this.maxMessageBytes / 2));
        const cutHeader = Buffer.alloc(headerLength);
        cutHeader[0] = type;
        cutHeader.writeUInt32BE(4 + this.kept + errorEnd.length, 1);
        out.push(cutHeader);
      } else {
        this.mode = 'skip';
      }
      this.onOversized?.({ type: typeName, length, action: cuttable ? 'cut' : 'skipped' });
    }
    close(chunk.length);
    return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
  }
}

/**
 * A TCP socket whose received bytes pass through `gate` before any listener sees them; node-postgres
 * takes it as its `stream` (with a `MessageGate`), and `GatedMysqlSocket` builds on it.
 */
export class GatedSocket extends net.Socket {
  constructor(private readonly gate: { filter(chunk: Buffer): Buffer }) {
    super();
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'data' || !Buffer.isBuffer(args[0])) return super.emit(event, ...args);
    const passed = this.gate.filter(args[0]);
    return passed.length === 0 ? true : super.emit('data', passed);
  }
}
