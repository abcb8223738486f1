/**
 * Loading the native addons (pkcs11js, better-sqlite3) only on the code path that needs them: both are optional
 * peer dependencies, so `import 'paraph'` must work where they are not installed or their install scripts never ran
 * (pnpm ≥ 10, `npm ci --ignore-scripts`, slim images without a compiler), and the one feature that needs a missing
 * addon fails with an error naming the package and the command that fixes it.
 */
import { ParaphError } from './errors.js';

/**
 * Thrown when a feature needs an optional native package: `OPTIONAL_DEPENDENCY_MISSING` when it is not installed
 * (paraph does not install it: it is an optional peer dependency), `NATIVE_MODULE_MISSING` when it is installed but
 * its addon was never built (install scripts not run, no compiler).
 */
export class NativeModuleError extends ParaphError {
  /** The npm package that could not be loaded. */
  readonly packageName: string;

  constructor(packageName: string, feature: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    const installed = !isPackageNotFound(packageName, cause);
    super(
      installed ? 'NATIVE_MODULE_MISSING' : 'OPTIONAL_DEPENDENCY_MISSING',
      installed
        ? `${feature} needs the native package "${packageName}", which could not be loaded (${reason}). ` +
            `Build it with its install script allowed, e.g. \`npm rebuild ${packageName}\` (a C++ compiler and Python are needed to build it).`
        : `${feature} needs the optional package "${packageName}", which is not installed: \`npm install ${packageName}\` (its install script builds a native addon).`,
      { origin: 'internal', cause },
    );
    this.packageName = packageName;
  }
}

/** Whether `cause` is Node's "cannot find package `packageName`" (not a failure inside a package that is there). */
function isPackageNotFound(packageName: string, cause: unknown): boolean {
  if (typeof cause !== 'object' || cause === null) return false;
  const { code, message } = cause as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`));
}

/**
 * Runs `load` (a dynamic `import()` of `packageName`, plus whatever touches its addon) once and caches the result;
 * a failure becomes a {@link NativeModuleError} and is retried on the next call.
 */
export function lazyNativeModule<T>(packageName: string, feature: string, load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((cause: unknown) => {
      loaded = undefined;
      throw new NativeModuleError(packageName, feature, cause);
    }));
}
