/** Reading an uploaded logo's request body, kept no further than the logo's byte cap. */
import type { Readable } from 'node:stream';
import { LOGO_LIMITS } from '../service/branding/logo-header.js';
import { ServiceError } from '../service/service-error.js';

/** The body's bytes. @throws ServiceError `LOGO_TOO_LARGE` (413) past 256 KiB, `LOGO_INVALID` for an empty body. */
export function readLogoUpload(body: unknown): Promise<Uint8Array> {
  const empty = (): ServiceError => new ServiceError('LOGO_INVALID', 'Logo: the request body is empty; send the PNG or JPEG image itself.');
  if (body === undefined || body === null) return Promise.reject(empty());
  const stream = body as Readable;
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (part: Buffer): void => {
      size += part.length;
      if (size <= LOGO_LIMITS.maxBytes) {
        parts.push(part);
        return;
      }
      // The rest is read and dropped, so the client gets the answer rather than a reset connection.
      stream.off('data', onData);
      stream.resume();
      reject(new ServiceError('LOGO_TOO_LARGE', `Logo: more than ${LOGO_LIMITS.maxBytes} bytes (256 KiB); send a smaller PNG or JPEG.`));
    };
    stream.on('data', onData);
    stream.on('error', reject);
    stream.on('end', () => (size === 0 ? reject(empty()) : resolve(new Uint8Array(Buffer.concat(parts)))));
  });
}
