/**
 * Writes docs/errors.md from the error-code table of src/errors.ts (`npx tsx scripts/generate-errors-doc.ts`);
 * test/errors.test.ts fails when the file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../src/errors.js';

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The whole of docs/errors.md. */
export function errorsDoc(): string {
  const rows = Object.entries(ERROR_CODES)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, info]) => `| \`${code}\` | ${info.status} | ${cell(info.meaning)} | ${cell(info.fix)} |`);
  return [
    '# Error codes',
    '',
    'Every error paraph throws on purpose is a `ParaphError` (`import { ParaphError, ERROR_CODES } from \'paraph\'`) with a',
    'stable `code`. The library throws them; the service answers them as `{"Message": "..."}` with the status below',
    '(400 marks an input error, fixable by the caller; for a 500 the message is logged with the request id and never sent).',
    'The table is `ERROR_CODES` in `src/errors.ts`; this page is generated from it by `npx tsx scripts/generate-errors-doc.ts`.',
    '',
    '| Code | HTTP status | Meaning | How to fix |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../docs/errors.md', import.meta.url), errorsDoc());
}
