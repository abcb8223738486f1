/**
 * Writes the settings tables of docs/configuration.md (every setting), SECURITY.md (the security section) and the
 * README (the essential ones) from the declaration in src/config-settings.ts
 * (`npx tsx scripts/generate-config-doc.ts`); test/config-doc.test.ts fails when a table is out of date. Each table
 * sits between the two marker comments below; the text around it is written by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_SETTINGS, defaultText, typeText, type ConfigSetting } from '../src/config-settings.js';

export const TABLE_START = '<!-- settings table: generated from src/config-settings.ts by scripts/generate-config-doc.ts -->';
export const TABLE_END = '<!-- end of settings table -->';

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const SETTINGS: readonly ConfigSetting[] = Object.values(CONFIG_SETTINGS);
const meaning = (setting: ConfigSetting): string => cell(setting.details === undefined ? setting.description : `${setting.description}; ${setting.details}`);

/** The full table: variable, config file key, type, default, meaning. */
function fullTable(settings: readonly ConfigSetting[]): string[] {
  return [
    '| Variable | Config file key | Type | Default | Meaning |',
    '| --- | --- | --- | --- | --- |',
    ...settings.map((s) => `| \`${s.env}\` | \`${s.file}\` | ${typeText(s)} | ${cell(defaultText(s))} | ${meaning(s)} |`),
  ];
}

/** The README's short table: variable, default, meaning. */
function shortTable(settings: readonly ConfigSetting[]): string[] {
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...settings.map((s) => `| \`${s.env}\` | ${cell(defaultText(s))} | ${cell(s.description)} |`)];
}

/** Each generated file with the table it holds. */
export const GENERATED_TABLES: Readonly<Record<string, () => string[]>> = {
  'docs/configuration.md': () => fullTable(SETTINGS),
  'SECURITY.md': () => fullTable(SETTINGS.filter((s) => s.section === 'security')),
  'README.md': () => shortTable(SETTINGS.filter((s) => s.essential === true)),
};

/** `text` with the part between the markers replaced by `table`. */
export function withTable(text: string, table: readonly string[], file: string): string {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${file}: the settings table markers are missing`);
  return `${text.slice(0, start + TABLE_START.length)}\n${table.join('\n')}\n${text.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, table] of Object.entries(GENERATED_TABLES)) {
    const url = new URL(`../${file}`, import.meta.url);
    writeFileSync(url, withTable(readFileSync(url, 'utf8'), table(), file));
  }
}
