/**
 * The `Digest` request header of PUT file (docs/design/files.md#digest; RFC 3230 with the algorithm names of
 * RFC 5843): `SHA-256=<base64>` and/or `SHA-512=<base64>`, comma-separated, algorithm token case-insensitive,
 * `SHA256`/`SHA512` accepted as aliases. MD5, SHA (SHA-1) and anything else: 400 "Hash algorithm [X] is not supported."
 */
import { ParaphError } from '../errors.js';

/** Expected digests as lowercase hex. */
export interface ExpectedDigests {
  sha256?: string;
  sha512?: string;
}

const LENGTH = { sha256: 32, sha512: 64 } as const;

/**
 * Parses a Digest header (undefined or empty: no expectation).
 *
 * @throws ParaphError `DIGEST_UNSUPPORTED` / `DIGEST_INVALID` (400).
 */
export function parseDigestHeader(header: string | readonly string[] | undefined): ExpectedDigests {
  const text = Array.isArray(header) ? header.join(',') : (header as string | undefined);
  const out: ExpectedDigests = {};
  if (text === undefined || text.trim() === '') return out;
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const algorithm = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    const normalized = algorithm.toUpperCase();
    const kind = normalized === 'SHA-256' || normalized === 'SHA256' ? 'sha256' : normalized === 'SHA-512' || normalized === 'SHA512' ? 'sha512' : undefined;
    if (kind === undefined) throw new ParaphError('DIGEST_UNSUPPORTED', `Hash algorithm [${algorithm}] is not supported.`);
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
    if (bytes === undefined || bytes.length !== LENGTH[kind]) {
      throw new ParaphError(
        'DIGEST_INVALID',
        `Digest header: the ${kind === 'sha256' ? 'SHA-256' : 'SHA-512'} value must be the base64 of ${LENGTH[kind]} bytes (got ${JSON.stringify(value)}).`,
      );
    }
    const hex = bytes.toString('hex');
    if (out[kind] !== undefined && out[kind] !== hex) {
      throw new ParaphError('DIGEST_INVALID', `Digest header: two different ${kind === 'sha256' ? 'SHA-256' : 'SHA-512'} values.`);
    }
    out[kind] = hex;
  }
  return out;
}
