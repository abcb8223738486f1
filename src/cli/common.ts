/**
 * What every CLI command shares: its signature, and how errors become exit codes (2 for bad input and for a TSA,
 * OCSP or CRL service that failed, with the message and the flag to use on stderr; 1 for anything paraph did
 * wrong). A CLI user never sees a stack trace.
 */
import { isInputError, ParaphError } from '../errors.js';

/** The streams a command writes to; tests hand in buffers. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress redrawn in place); absent means not (plain lines). */
  stderrIsTerminal?: boolean;
}

/** A CLI command: parses its own arguments and returns the process exit code. */
export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

/** Thrown by a command for a usage mistake (missing argument, unknown flag). */
export class UsageError extends Error {}

/**
 * Runs `command`, turning thrown errors into the exit code contract. A paraph error shows its stable code (the rows of
 * docs/errors.md) before its message; with `--json` among the arguments the error is one JSON line on stderr instead,
 * `{"error":{"code":…,"message":…}}` (code null for a usage mistake or an unexpected error).
 */
export async function runCommand(command: CliCommand, args: string[], io: CliIo): Promise<number> {
  const json = args.includes('--json');
  const report = (error: unknown, text: string, exitCode: number): number => {
    const code = error instanceof ParaphError ? error.code : null;
    if (json) io.stderr(`${JSON.stringify({ error: { code, message: text.trimEnd() } })}\n`);
    else io.stderr(code === null ? text : `${code}: ${text}`);
    return exitCode;
  };
  try {
    return await command(args, io);
  } catch (error) {
    if (error instanceof UsageError) return report(error, `${error.message}\n`, 2);
    if (isInputError(error)) return report(error, `${error.message}\n`, 2);
    // parseArgs reports unknown options and missing values with these codes.
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return report(error, `${(error as Error).message}\n`, 2);
    if (error instanceof ParaphError && NETWORK_FAILURES[error.code] !== undefined) {
      return report(error, `${cliWording(error.message)}\n${NETWORK_FAILURES[error.code]}\n`, 2);
    }
    if (error instanceof ParaphError) return report(error, `internal error: ${cliWording(error.message)}\n`, 1);
    return report(error, `internal error: ${error instanceof Error ? cliWording(error.message) : String(error)}\n`, 1);
  }
}

/** Failures of a service on the network (TSA, OCSP responder, CRL server): what the user can do about each. */
const NETWORK_FAILURES: Readonly<Record<string, string>> = {
  VALIDATION_DATA_INCOMPLETE: 'The OCSP responder or CRL server could not give an answer; retry later, or run paraph extend with --allow-incomplete to write what was found.',
  OCSP_UNAVAILABLE: 'The OCSP responder could not be reached; retry later, or run paraph extend with --allow-incomplete.',
  CRL_UNAVAILABLE: 'The CRL could not be downloaded; retry later, or run paraph extend with --allow-incomplete.',
  TSA_UNREACHABLE: 'The time-stamp authority could not be reached: check --tsa <url> and the network.',
  TSA_HTTP_ERROR: 'The time-stamp authority refused the request: check --tsa <url>.',
  TSA_BAD_RESPONSE: 'The time-stamp authority sent no usable answer: check --tsa <url>.',
};

/** The library names its options in camelCase; on the command line they are flags. */
function cliWording(message: string): string {
  return message.replace(/\ballowIncomplete\b/g, '--allow-incomplete');
}
