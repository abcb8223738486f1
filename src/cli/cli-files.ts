/**
 * Reading the files named on a command line and writing a command's output, shared by every command: a missing
 * input is a usage error that names it, and an output is written atomically (a temporary file next to the target,
 * then a rename), so a failure never leaves a half-written file behind.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ParaphError } from '../errors.js';

/** Reads a file named on the command line; a missing or unreadable file is `FILE_UNREADABLE` naming `what` and `path`. */
export async function readCliFile(path: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? String(error));
    throw new ParaphError('FILE_UNREADABLE', `cannot read ${what} ${path}: ${reason} (check the path and its permissions)`, { cause: error });
  }
}

/**
 * Writes `bytes` to `path` (creating its directory) so that readers see either the old file or the complete new
 * one. Throws ParaphError `OUTPUT_NOT_WRITABLE` (bad input: choose another path) when it cannot.
 */
export async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temp, bytes, { flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined); // nothing to clean when the directory is unusable
    const code = (error as NodeJS.ErrnoException).code;
    throw new ParaphError('OUTPUT_NOT_WRITABLE', `Cannot write "${path}": ${code ?? String(error)}. Choose another -o path.`, {
      cause: error,
    });
  }
}

/**
 * Reads the `--trust` certificate files (PEM or DER) and checks that they parse, so a bad root is a usage error
 * naming the files rather than an untrusted verdict later.
 */
export async function readTrustRoots(paths: readonly string[] | undefined): Promise<Uint8Array[]> {
  const roots: Uint8Array[] = [];
  for (const path of paths ?? []) roots.push(await readCliFile(path, 'trust root'));
  // Loaded here, not at the top: it pulls in pkijs, which commands that take no --trust (place) should not pay for.
  const { parseCertificates } = await import('../pades/verify-chain.js');
  try {
    parseCertificates(roots);
  } catch (error) {
    throw new ParaphError('INVALID_CERTIFICATE', `${(error as Error).message} (--trust ${paths?.join(', ')})`, { cause: error });
  }
  return roots;
}

/**
 * The input PDF of a command that appends to it (place, sign, seal), made fit for that: an unsigned file that readers
 * open but resolve differently (damaged cross-reference data, a page tree only a repairing reader finds) or that is
 * encrypted with an empty user password is rewritten once, cleanly, and the command works on the rewrite — it says
 * so on stderr. A signed file in that state is refused (a rewrite would break its signatures), as is one that needs
 * a password.
 */
export async function readPdfToUpdate(path: string, io: { stderr: (text: string) => void }, bytes?: Uint8Array): Promise<Uint8Array> {
  const pdf = bytes ?? (await readCliFile(path, 'input PDF'));
  const { normalizePdf } = await import('../pdf/normalize-pdf.js');
  const normalized = await normalizePdf(pdf);
  if (normalized.normalization) {
    const why = normalized.normalization.reason === 'encrypted-empty-password' ? 'its encryption (no password needed to open it) removed' : `its structure repaired: ${normalized.normalization.detail}`;
    io.stderr(`note: ${path} was rewritten before the update (${why})\n`);
  }
  return normalized.bytes;
}
