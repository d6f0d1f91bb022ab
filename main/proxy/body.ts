// Reads a request body up to a size limit and parses it as JSON, with errors a client can act on.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.ts';

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limitBytes) {
    req.resume();
    return Promise.reject(tooLarge(limitBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Anonymous callbacks, not named consts: tsx's keepNames would rename a named one on every request.
    req.on('data', (chunk: Buffer) => {
      if (size < 0) return;
      size += chunk.length;
      if (size > limitBytes) {
        size = -1;
        req.resume();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (size >= 0) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.once('error', reject);
  });
}

function tooLarge(limit: number): ApiError {
  return new ApiError(
    'body_too_large',
    `The request body is larger than the limit of ${Math.round(limit / 1048576)} MB.`,
    'Send a smaller request, or raise max_body_mb in config.json.',
  );
}

export function parseJson(body: Buffer): unknown {
  if (body.length === 0) {
    throw new ApiError(
      'invalid_json',
      'The request body is empty; a JSON object was expected.',
      'Send a JSON body with Content-Type: application/json.',
    );
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new ApiError(
      'invalid_json',
      `The request body is not valid JSON: ${(err as Error).message}.`,
      'Send a well-formed JSON object with Content-Type: application/json.',
    );
  }
}
