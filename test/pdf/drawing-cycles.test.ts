import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDrawingCycle } from '../../src/pdf/drawing-cycles.js';

const CORPUS = join(import.meta.dirname, '../../fixtures/corpus');
const read = (file: string): Uint8Array => readFileSync(join(CORPUS, file));

describe('findDrawingCycle', () => {
  it('names a cycle through a form, a form and a tiling pattern (the shape of pdf.js operator_list_cycle.pdf)', async () => {
    expect(await findDrawingCycle(read('form-pattern-cycle.pdf'), 1)).toEqual(['form 5 0 R', 'form 7 0 R', 'pattern 6 0 R', 'form 5 0 R']);
  });

  it('names a form that draws itself', async () => {
    expect(await findDrawingCycle(read('form-self-cycle.pdf'), 1)).toEqual(['form 5 0 R', 'form 5 0 R']);
  });

  it('finds none in 60 nested forms, Type3 glyphs with images, or plain pages', async () => {
    expect(await findDrawingCycle(read('deep-nesting.pdf'), 1)).toBeUndefined();
    expect(await findDrawingCycle(read('type3-huge-image.pdf'), 1)).toBeUndefined();
    expect(await findDrawingCycle(read('book.pdf'), 60)).toBeUndefined();
  });

  it('answers undefined for a page that does not exist or bytes that are no PDF', async () => {
    expect(await findDrawingCycle(read('book.pdf'), 500)).toBeUndefined();
    expect(await findDrawingCycle(new TextEncoder().encode('no pdf'), 1)).toBeUndefined();
  });
});
