/**
 * A bound on the size of every packet a MySQL or MariaDB server sends to an episode connection,
 * applied to the bytes before mysql2 sees them. `max_allowed_packet` does not bound a result row (a row
 * of many long values is sent as one logical packet, split into 16 MiB pieces), and mysql2 joins a
 * whole row before it decodes it, so one row could cost far more memory than the result caps allow.
 * The gate reads the protocol's framing (a 3-byte length, a sequence number; a piece of 0xFFFFFF bytes
 * continues in the next) and skips a logical packet over the bound as it arrives. Only result rows can
 * be that long; the packets after a skipped row get their sequence numbers moved down, so mysql2 sees a
 * well-formed result without that row.
 */
import { GatedSocket } from './postgres-frames.js';

const headerLength = 4;
/** A piece of this length is continued by the next one. */
const continued = 0xffffff;

/**
 * Splits a MySQL server's byte stream into packets and skips logical packets over the bound (see the
 * module comment). `newCommand` must be called when the client starts a command.
 */
export class PacketGate {
  /** Called for every logical packet over the bound, with the length of its first piece. */
  onOversized: ((length: number) => void) | null = null;
  /** The longest logical packet passed, header included; below 16 MiB. */
  readonly maxPacketBytes: number;
  private readonly header = Buffer.alloc(headerLength);
  private headerFill = 0;
  /** Payload bytes of the current piece still to come. */
  private remaining = 0;
  private skipping = false;
  /** The current piece is continued by the next (its length was 0xFFFFFF). */
  private continues = false;
  /** Pieces skipped in the current command: later sequence numbers move down by this much. */
  private shift = 0;

  constructor(maxPacketBytes: number) {
    if (!Number.isInteger(maxPacketBytes) || maxPacketBytes < 1024) {
      throw new RangeError(`maxPacketBytes must be an integer of at least 1024, not ${maxPacketBytes}`);
    }
    this.maxPacketBytes = Math.min(maxPacketBytes, continued);
  }

  /** The client starts a command: sequence numbers start again. */
  newCommand(): void {
    this.shift = 0;
  }

  /** The bytes of `chunk` the driver may see (possibly none), in order. */
  filter(chunk: Buffer): Buffer {
    const out: Buffer[] = [];
    let run = 0;
    let position = 0;
    const close = (end: number): void => {
      if (end > run) out.push(chunk.subarray(run, end));
    };
    while (position < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - position);
        this.remaining -= take;
        if (this.skipping) close(position);
        position += take;
        if (this.skipping) run = position;
        continue;
      }
      const start = position;
      let header: Buffer;
      const split = !(this.headerFill === 0 && chunk.length - position >= headerLength);
      if (!split) {
        header = chunk.subarray(position, position + headerLength);
        position += headerLength;
      } else {
        // A header split between chunks is held back until it is whole.
        close(position);
        const take = Math.min(headerLength - this.headerFill, chunk.length - position);
        chunk.copy(this.header, this.headerFill, position, position + take);
        this.headerFill += take;
        position += take;
        run = position;
        if (this.headerFill < headerLength) continue;
        this.headerFill = 0;
        header = Buffer.from(this.header);
        out.push(header);
      }
      const length = header.readUIntLE(0, 3);
      const startsPacket = !this.continues;
      this.continues = length === continued;
      this.remaining = length;
      if (startsPacket) {
        this.skipping = length + headerLength > this.maxPacketBytes;
        if (this.skipping) this.onOversized?.(length);
      }
      if (this.skipping) {
        // Drop the header (already passed on when it was split) and the payload that follows.
        if (split) out.pop();
        else close(start);
        run = position;
        this.shift += 1;
      } else if (this.shift > 0) {
        header[3] = ((header[3] ?? 0) - this.shift + 256) & 0xff;
      }
    }
    close(chunk.length);
    return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
  }
}

/**
 * A TCP socket whose received bytes pass through `gate` before any listener sees them, and that tells
 * the gate when the client starts a command; mysql2 takes it as its `stream`.
 */
export class GatedMysqlSocket extends GatedSocket {
  constructor(private readonly packets: PacketGate) {
    super(packets);
  }

  override write(data: string | Uint8Array, ...rest: unknown[]): boolean {
    // A client packet numbered 0 begins a command.
    if (typeof data !== 'string' && data.length >= headerLength && data[3] === 0) this.packets.newCommand();
    const write = super.write as (data: string | Uint8Array, ...rest: unknown[]) => boolean;
    return write.call(this, data, ...rest);
  }
}
