import type { IncomingMessage } from 'node:http';
import { HttpError } from '@harness-s/core';

/** Bytes of a request body the AppWorld server reads at most (8 MiB). */
export const defaultMaxBodyBytes = 8 * 1024 * 1024;
/** Time a request body may take to arrive once its headers have (30 s). */
export const defaultBodyTimeoutMs = 30_000;

/** A request body refused before it was read whole: the answer closes the connection. */
export class BodyRefused extends HttpError {}

/**
 * The JSON of a request body, `{}` for an empty one. A body that declares a length over `maxBytes`
 * is refused with 413 before a byte of it is read; one without a declared length, as soon as what
 * has arrived passes `maxBytes`; one not whole within `timeoutMs`, with 408. What has arrived of
 * a refused body is dropped and the rest is not read.
 */
export function readBody(
  request: IncomingMessage,
  { maxBytes, timeoutMs }: { maxBytes: number; timeoutMs: number },
): Promise<unknown> {
  const tooLarge = () =>
    new BodyRefused(413, `The request body is larger than ${maxBytes} bytes (the server's limit).`);
  if (Number(request.headers['content-length']) > maxBytes) return Promise.reject(tooLarge());
  return new Promise<unknown>((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error): void => {
      finish();
      request.pause();
      chunks = [];
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) stop(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      finish();
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') resolve({});
      else {
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new HttpError(422, 'the body is not valid JSON'));
        }
      }
    };
    const onClose = (): void => stop(new HttpError(400, 'The request was closed before its body arrived.'));
    const timer = setTimeout(
      () => stop(new BodyRefused(408, `The request body did not arrive within ${timeoutMs / 1000} s.`)),
      timeoutMs,
    );
    const finish = (): void => {
      clearTimeout(timer);
      request.off('data', onData).off('end', onEnd).off('error', onClose).off('close', onClose);
    };
    request.on('data', onData).on('end', onEnd).on('error', onClose).on('close', onClose);
  });
}
