/**
 * Loading the native addons (pkcs11js, better-sqlite3) only on the code path that needs them:
 * `import 'paraph'` must work where install scripts never ran (pnpm ≥ 10, `npm ci --ignore-scripts`, slim images
 * without a compiler), and the one feature that needs a missing addon fails with an error naming the package.
 */
import { ParaphError } from './errors.js';

/** Thrown when a feature needs a native package that is not installed or was never built. */
export class NativeModuleError extends ParaphError {
  /** The npm package that could not be loaded. */
  readonly packageName: string;

  constructor(packageName: string, feature: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    super(
      'NATIVE_MODULE_MISSING',
      `${feature} needs the native package "${packageName}", which could not be loaded (${reason}). ` +
        `Install it with its install script allowed, e.g. \`npm rebuild ${packageName}\` (a C++ compiler and Python are needed to build it).`,
      { origin: 'internal', cause },
    );
    this.packageName = packageName;
  }
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
