import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatTable } from '../../src/bench/measure.js';
import { parseTables, README_BEGIN, README_END, referenceColumns, replaceBenchSection } from '../../bench/tables.js';

const cell = fc.stringMatching(/^[A-Za-z0-9 .,/()×-]{1,12}$/).map((s) => s.trim() || 'x');

describe('bench tables', () => {
  it('reads back every table formatTable prints', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 4 })), { minLength: 1, maxLength: 4 }), (specs) => {
        const tables = specs.map(([title, width, height], i) => ({
          title: `${title} ${i}`,
          header: Array.from({ length: width }, (_, c) => `h${c}`),
          rows: Array.from({ length: height }, (_, r) => Array.from({ length: width }, (_, c) => `${r}.${c}`)),
        }));
        const printed = tables.map((t) => formatTable(t.title, t.header, t.rows)).join('');
        expect(parseTables(printed)).toEqual(tables);
      }),
    );
  });

  it('recognises reference columns and finds none in a table without one', () => {
    expect(referenceColumns(['pages', 'sign', 'pdf-lib load', 'sha256sum', 'RSS'])).toEqual(['pdf-lib load', 'sha256sum']);
    expect(referenceColumns(['req/s', 'bare node:http server, same body (ref) req/s'])).toHaveLength(1);
    expect(referenceColumns(['measure', 'value', 'target'])).toEqual([]);
  });

  it('replaces only what lies between the README markers', () => {
    const readme = `# t\n\nbefore\n\n${README_BEGIN}\n\nold table\n\n${README_END}\n\nafter\n`;
    const next = replaceBenchSection(readme, '#### new\n\n| a |\n|---|\n| 1 |');
    expect(next).toBe(`# t\n\nbefore\n\n${README_BEGIN}\n\n#### new\n\n| a |\n|---|\n| 1 |\n\n${README_END}\n\nafter\n`);
    expect(replaceBenchSection(next, 'again')).toContain(`${README_BEGIN}\n\nagain\n\n${README_END}`);
    expect(() => replaceBenchSection('# no markers', 'x')).toThrow(/bench markers/);
  });
});
