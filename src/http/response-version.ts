/**
 * Response versions (docs/design/api.md#versions): `Accept: application/vnd.signhost.v2+json` selects version 2
 * (absent properties omitted); v1, plain JSON or no Accept give version 1 (null for every absent property).
 */
import type { ResponseVersion } from '../domain/transaction-view.js';

/** The version an Accept header asks for. */
export function responseVersion(accept: string | undefined): ResponseVersion {
  if (accept === undefined) return 1;
  return /application\/vnd\.signhost\.v2\+json/i.test(accept) ? 2 : 1;
}

/** The Content-Type of every JSON response (charset utf-8). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
