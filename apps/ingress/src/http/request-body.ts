/**
 * Reads a request body up to a limit, decoding gzip or deflate. The limit applies to the decoded
 * bytes (a small compressed body cannot expand past it), and reading stops as soon as it is
 * crossed. The caller has already checked who is asking: an unauthenticated request is refused
 * before a byte of its body is read.
 */
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { ErrorReason } from '#core';
import type { ContentCoding } from './edge-admission.js';
import { ProblemCode, ProblemError } from './problem.js';

/**
 * The whole body, decoded.
 *
 * @throws {ProblemError} `ingest_refused` (413, `payload_too_large`) past `limitBytes`;
 * `malformed_body` (400) when the compressed stream is corrupt.
 */
export async function readBody(request: Readable & { readonly headers: Readonly<Record<string, unknown>> }, coding: ContentCoding, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers['content-length']);
  if (coding === 'identity' && Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  const source: Readable = coding === 'gzip' ? request.pipe(createGunzip()) : coding === 'deflate' ? request.pipe(createInflate()) : request;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of source) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > limitBytes) {
        source.destroy();
        throw tooLarge(limitBytes);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof ProblemError) throw error;
    throw new ProblemError(ProblemCode.malformed_body, `the ${coding} body cannot be decoded: ${(error as Error).message}`);
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}

function tooLarge(limitBytes: number): ProblemError {
  return new ProblemError(ProblemCode.ingest_refused, `the body is larger than ${limitBytes} bytes (ingress.maxEventBytes)`, { status: 413, reason: ErrorReason.PayloadTooLarge });
}
