import { hasNodeSqlite, type SqliteDriverName } from '../../src/store/sqlite-driver.js';

/**
 * The SQLite drivers this Node can run the store on: node:sqlite where Node has it (22.13+), better-sqlite3 below
 * Node 24 (from 24.19 its addon can abort the process when the garbage collector frees a statement, nodejs/node#65446).
 */
export function usableSqliteDrivers(nodeVersion: string = process.versions.node): SqliteDriverName[] {
  const drivers: SqliteDriverName[] = [];
  if (Number(nodeVersion.split('.')[0]) < 24) drivers.push('better-sqlite3');
  if (hasNodeSqlite()) drivers.push('node:sqlite');
  return drivers;
}
