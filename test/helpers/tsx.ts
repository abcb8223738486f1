import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * tsx's loader as an absolute URL for `node --import`: a bare `tsx` resolves from the child's working directory,
 * which fails when a test runs the child in a temporary directory.
 */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
