import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderLineChart } from '../../src/bench/svg-chart.js';

const chart = {
  title: 'ms/page <vs> pages',
  xLabel: 'pages',
  yLabel: 'ms per page',
  series: [
    { name: 'place', points: [{ x: 10, y: 5 }, { x: 100, y: 2 }, { x: 5000, y: 1.5 }] },
    { name: 'sha256sum & co', points: [{ x: 10, y: 0.1 }, { x: 5000, y: 0.001 }], dashed: true },
    { name: 'missing tool', points: [] },
  ],
};

describe('renderLineChart', () => {
  it('draws one polyline per series with points, at log positions, and a legend entry for every series', () => {
    const svg = renderLineChart(chart);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(5);
    expect(svg).toContain('>missing tool</text>');
    expect(svg).toContain('ms/page &lt;vs&gt; pages');
    expect(svg).toContain('sha256sum &amp; co');
    expect(svg).toContain('stroke-dasharray');
    // x axis 10 … 10k: four decades over the plot width; 100 sits a third of the way from 10 to 10k.
    const place = /data-series="place" points="([^"]+)"/.exec(svg)?.[1]?.split(' ').map((p) => p.split(',').map(Number)) ?? [];
    const [a, b] = [place[0]![0]!, place[1]![0]!];
    expect(b - a).toBeCloseTo((860 - 70 - 190) / 3, 0);
  });

  it('stays finite for subnormal and huge values (10 ** -324 underflowed to 0: grid lines at -Infinity)', () => {
    for (const points of [[{ x: 5e-324, y: 5e-324 }], [{ x: 1.7e308, y: 1e308 }, { x: 1, y: 1 }]]) {
      const svg = renderLineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 's', points }] });
      expect(svg).not.toMatch(/NaN|Infinity/);
    }
  });

  it('is well-formed for any series: tags balance, attribute values quoted, text escaped, no NaN', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.string({ maxLength: 12 }), points: fc.array(fc.record({ x: fc.double({ min: -10, max: 1e5 }), y: fc.double({ min: -1, max: 1e4 }) }), { maxLength: 6 }) }), { maxLength: 5 }),
        (series) => {
          const svg = renderLineChart({ title: 't', xLabel: 'x', yLabel: 'y', series });
          expect(svg).not.toMatch(/NaN|Infinity/);
          expectWellFormed(svg);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** A small XML well-formedness check (no XML parser among the dependencies): every tag closes in order. */
function expectWellFormed(xml: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([a-z]+)((?:\s+[A-Za-z0-9:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const text = xml.slice(last, m.index);
    expect(text, 'text between tags').not.toMatch(/[<>]|&(?!(amp|lt|gt|quot);)/);
    last = tag.lastIndex;
    const [, closing, name, , selfClosing] = m;
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) stack.push(name!);
  }
  expect(xml.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}
