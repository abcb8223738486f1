/**
 * Response versions as media types: `application/vnd.signhost.v2+json` is version 2 (absent properties omitted);
 * `application/vnd.signhost.v1+json`, `application/json`, any wildcard or no Accept header are version 1 (null for
 * every absent property). The answer carries the media type that was chosen, and `Vary: Accept`.
 */
import type { FastifyReply } from 'fastify';
import type { ResponseVersion } from '../domain/transaction-view.js';

/** The Content-Type of every JSON response (charset utf-8). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The media types of the transaction bodies, each with its version. */
const VERSION_MEDIA_TYPES = {
  'application/json': 1,
  'application/vnd.signhost.v1+json': 1,
  'application/vnd.signhost.v2+json': 2,
} as const satisfies Readonly<Record<string, ResponseVersion>>;
type VersionMediaType = keyof typeof VERSION_MEDIA_TYPES;

/** Preference among equally weighted media types: the most specific first. */
const PREFERENCE: readonly VersionMediaType[] = ['application/vnd.signhost.v2+json', 'application/vnd.signhost.v1+json', 'application/json'];

/** What an Accept header asks for: a version and the media type to answer with. */
export interface NegotiatedVersion {
  readonly version: ResponseVersion;
  readonly mediaType: VersionMediaType;
  /** `<mediaType>; charset=utf-8`. */
  readonly contentType: string;
}

/**
 * The media type an Accept header prefers (its q-values honoured; `*\/*` and `application/*` mean plain JSON). A
 * header naming none of them is answered with plain JSON, version 1, rather than 406: older clients send odd ones.
 */
export function negotiateVersion(accept: string | undefined): NegotiatedVersion {
  let best: { type: VersionMediaType; q: number } | undefined;
  for (const range of (accept ?? '').split(',')) {
    const [rawType = '', ...params] = range.split(';');
    const type = rawType.trim().toLowerCase();
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    const matched: VersionMediaType | undefined =
      type in VERSION_MEDIA_TYPES ? (type as VersionMediaType) : type === '*/*' || type === 'application/*' ? 'application/json' : undefined;
    if (matched === undefined) continue;
    if (best === undefined || q > best.q || (q === best.q && PREFERENCE.indexOf(matched) < PREFERENCE.indexOf(best.type))) best = { type: matched, q };
  }
  const mediaType = best?.type ?? 'application/json';
  return { version: VERSION_MEDIA_TYPES[mediaType], mediaType, contentType: `${mediaType}; charset=utf-8` };
}

/** The version an Accept header asks for. */
export function responseVersion(accept: string | undefined): ResponseVersion {
  return negotiateVersion(accept).version;
}

/** Sets the negotiated Content-Type and `Vary: Accept` on a reply; returns the version to render. */
export function versionedReply(reply: FastifyReply, accept: string | undefined): ResponseVersion {
  const negotiated = negotiateVersion(accept);
  reply.type(negotiated.contentType).header('vary', 'Accept');
  return negotiated.version;
}
