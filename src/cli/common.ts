/**
 * What every CLI command shares: its signature, and how errors become exit codes
 * (2 for bad input, with the message on stderr; 1 for anything paraph did wrong).
 */
import { isInputError } from '../errors.js';

/** The streams a command writes to; tests hand in buffers. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** A CLI command: parses its own arguments and returns the process exit code. */
export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

/** Thrown by a command for a usage mistake (missing argument, unknown flag). */
export class UsageError extends Error {}

/** Runs `command`, turning thrown errors into the exit code contract. */
export async function runCommand(command: CliCommand, args: string[], io: CliIo): Promise<number> {
  try {
    return await command(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n`);
      return 2;
    }
    if (isInputError(error)) {
      io.stderr(`${error.message}\n`);
      return 2;
    }
    // parseArgs reports unknown options and missing values with these codes.
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`${(error as Error).message}\n`);
      return 2;
    }
    io.stderr(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}
