/**
 * The SQLite connection the embedded store runs on, over one of two drivers:
 * - `better-sqlite3` (the native addon) on Node 20 and 22;
 * - Node's built-in `node:sqlite` on Node 24 and later. Node 24.19 changed `node::ObjectWrap` so that an addon built
 *   against its headers aborts the process when the garbage collector frees one of its objects outside a JavaScript
 *   context (`Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook`, nodejs/node#65446): better-sqlite3
 *   12 is such an addon, and a store's discarded statements are such objects. The built-in driver needs no addon.
 * The service's `PARAPH_SQLITE_DRIVER` setting (the store's `driver` option) picks one explicitly.
 */
import { createRequire } from 'node:module';
import { NativeModuleError } from '../load-native-module.js';
import { StoreError } from './store.js';

/** The drivers {@link openSqliteDatabase} can use. */
export const SQLITE_DRIVERS = ['better-sqlite3', 'node:sqlite'] as const;
export type SqliteDriverName = (typeof SQLITE_DRIVERS)[number];

/** A value a statement binds: positional parameters, or one object of named ones (`@name`). */
export type SqliteParameter = string | number | bigint | null | Uint8Array;
export type SqliteParameters = SqliteParameter[] | [Readonly<Record<string, SqliteParameter>>];

/** A prepared statement (rows come back as plain objects). */
export interface SqliteStatement {
  run(...params: SqliteParameters): { readonly changes: number | bigint };
  get(...params: SqliteParameters): unknown;
  all(...params: SqliteParameters): unknown[];
}

/** One open SQLite database. */
export interface SqliteDatabase {
  readonly driver: SqliteDriverName;
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  /** Runs `work` inside `BEGIN IMMEDIATE … COMMIT` (a savepoint when nested), rolled back when it throws. */
  immediate<T>(work: () => T): T;
  close(): void;
}

/**
 * The driver used when none is chosen: `node:sqlite` from Node 24 on; before, better-sqlite3 (an optional peer
 * dependency) when it is installed, else `node:sqlite` when this Node has it (22.13 and later), else better-sqlite3
 * (whose absence is then reported with the command that installs it).
 */
function defaultSqliteDriver(nodeVersion: string = process.versions.node): SqliteDriverName {
  if (Number(nodeVersion.split('.')[0]) >= 24) return 'node:sqlite';
  if (isInstalled('better-sqlite3') || nodeVersion !== process.versions.node) return 'better-sqlite3';
  return hasNodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

function isInstalled(packageName: string): boolean {
  try {
    createRequire(import.meta.url).resolve(packageName);
    return true;
  } catch {
    return false;
  }
}

/** Whether this Node has a usable `node:sqlite` (22.13 and later without a flag). */
export function hasNodeSqlite(): boolean {
  try {
    loadNodeSqlite();
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens the database file at `path` (or `:memory:`) with `driver`.
 *
 * @throws NativeModuleError when better-sqlite3 is chosen and its addon was never built.
 */
export function openSqliteDatabase(path: string, driver: SqliteDriverName = defaultSqliteDriver()): SqliteDatabase {
  return driver === 'node:sqlite' ? openWithNodeSqlite(path) : openWithBetterSqlite3(path);
}

/** Whether `error` is SQLite's SQLITE_CONSTRAINT (a unique key or foreign key refused the change), from either driver. */
export function isSqliteConstraintError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  // better-sqlite3: code 'SQLITE_CONSTRAINT_…'; node:sqlite: errcode is the extended result code, its low byte 19.
  return String(code).startsWith('SQLITE_CONSTRAINT') || (typeof errcode === 'number' && (errcode & 0xff) === SQLITE_CONSTRAINT);
}
const SQLITE_CONSTRAINT = 19;

// --- better-sqlite3 ---------------------------------------------------------------------------------------------

interface BetterSqlite3Database {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  transaction<T>(work: () => T): { immediate(): T };
  close(): unknown;
}
type BetterSqlite3Constructor = new (path: string) => BetterSqlite3Database;


let betterSqlite3: BetterSqlite3Constructor | undefined;

/**
 * better-sqlite3 is a native addon: loaded with the first store (not by `import 'paraph'`), its addon opened once
 * on an in-memory database so that a missing build is reported as such and not as a broken data directory.
 */
function loadBetterSqlite3(): BetterSqlite3Constructor {
  if (betterSqlite3 !== undefined) return betterSqlite3;
  try {
    const Database = createRequire(import.meta.url)('better-sqlite3') as BetterSqlite3Constructor;
    new Database(':memory:').close();
    betterSqlite3 = Database;
    return Database;
  } catch (cause) {
    throw new NativeModuleError('better-sqlite3', 'The embedded SQLite store', cause);
  }
}

function openWithBetterSqlite3(path: string): SqliteDatabase {
  const db = new (loadBetterSqlite3())(path);
  return {
    driver: 'better-sqlite3',
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    // better-sqlite3 nests transactions as savepoints itself.
    immediate: (work) => db.transaction(work).immediate(),
    close: () => void db.close(),
  };
}

// --- node:sqlite --------------------------------------------------------------------------------------------------

interface NodeSqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string) => NodeSqliteDatabase;
}

function loadNodeSqlite(): NodeSqliteModule {
  // createRequire: a static import would fail on Node 20, and @types/node 20 does not know the module.
  return createRequire(import.meta.url)('node:sqlite') as NodeSqliteModule;
}

function openWithNodeSqlite(path: string): SqliteDatabase {
  let module: NodeSqliteModule;
  try {
    module = loadNodeSqlite();
  } catch (cause) {
    throw new StoreError('SQLITE_DRIVER_UNAVAILABLE', `This Node (${process.version}) has no usable node:sqlite; use the better-sqlite3 driver (PARAPH_SQLITE_DRIVER=better-sqlite3).`, {
      origin: 'internal',
      cause,
    });
  }
  const db = new module.DatabaseSync(path);
  let depth = 0;
  return {
    driver: 'node:sqlite',
    exec: (sql) => db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    immediate: <T>(work: () => T): T => {
      const savepoint = `paraph_${depth}`;
      db.exec(depth === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
      depth++;
      try {
        const result = work();
        depth--;
        db.exec(depth === 0 ? 'COMMIT' : `RELEASE ${savepoint}`);
        return result;
      } catch (error) {
        depth--;
        db.exec(depth === 0 ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
        throw error;
      }
    },
    close: () => db.close(),
  };
}
