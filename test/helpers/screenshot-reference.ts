/**
 * Screenshots compared with committed references (test/fixtures/screenshots/<name>.png) so that an unintended change
 * of a page or a mail is seen. pixelmatch counts the pixels that differ beyond a colour threshold, leaving out
 * anti-aliasing; a run fails when more than a small share of the picture differs, and writes the new picture and a
 * diff image (changed pixels red) to test-artifacts/screenshots/. `UPDATE_SCREENSHOTS=1` writes the references
 * instead (look at them before committing). What changes from run to run (dates, codes, ids, drawn ink) must be fixed
 * in the test's data or masked when the screenshot is taken.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

const REFERENCES = join(process.cwd(), 'test', 'fixtures', 'screenshots');
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'screenshots');

/** pixelmatch's per-pixel colour distance (0–1) under which two pixels count as the same. */
const COLOUR_THRESHOLD = 0.2;
/** The share of pixels that may differ (anti-aliasing pixelmatch did not recognise); small enough that one changed word counts. */
const MAX_DIFF_RATIO = 0.0003;

/** What one comparison found. */
export interface ScreenshotComparison {
  readonly name: string;
  /** Pixels that differ, counting every pixel outside the area both pictures share. */
  readonly differing: number;
  readonly total: number;
  /** Set when the comparison failed: the diff image and the new picture in test-artifacts/screenshots/. */
  readonly diffPath?: string;
}

/**
 * Compares `screenshot` (PNG bytes) with the reference `name`, or writes it as the reference when UPDATE_SCREENSHOTS=1.
 * Throws, naming both files, when the reference is missing or more than {@link MAX_DIFF_RATIO} of the pixels differ.
 */
export async function compareWithReference(screenshot: Buffer, name: string): Promise<ScreenshotComparison> {
  const actual = PNG.sync.read(screenshot);
  const referencePath = join(REFERENCES, `${name}.png`);
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    await mkdir(REFERENCES, { recursive: true });
    // Chromium's own PNG (RGB) is smaller than pngjs's RGBA: references are committed, their size matters.
    await writeFile(referencePath, screenshot);
    return { name, differing: 0, total: actual.width * actual.height };
  }
  await mkdir(ARTIFACTS, { recursive: true });
  const actualPath = join(ARTIFACTS, `${name}-actual.png`);
  if (!existsSync(referencePath)) {
    await writeFile(actualPath, screenshot);
    throw new Error(`No reference screenshot ${referencePath}; the new one is ${actualPath}. Run with UPDATE_SCREENSHOTS=1 to write it.`);
  }
  const expected = PNG.sync.read(await readFile(referencePath));
  const width = Math.max(actual.width, expected.width);
  const height = Math.max(actual.height, expected.height);
  const common = { width: Math.min(actual.width, expected.width), height: Math.min(actual.height, expected.height) };
  // Both pictures cropped to the area they share; every pixel outside it counts as differing.
  const crop = (png: PNG): Uint8Array => {
    const out = new Uint8Array(common.width * common.height * 4);
    for (let y = 0; y < common.height; y++) out.set(png.data.subarray(y * png.width * 4, (y * png.width + common.width) * 4), y * common.width * 4);
    return out;
  };
  const diff = new PNG({ width: common.width, height: common.height });
  const inCommon = pixelmatch(crop(actual), crop(expected), diff.data, common.width, common.height, { threshold: COLOUR_THRESHOLD, includeAA: false });
  const total = width * height;
  const differing = inCommon + total - common.width * common.height;
  if (differing <= total * MAX_DIFF_RATIO) return { name, differing, total };
  const diffPath = join(ARTIFACTS, `${name}-diff.png`);
  await writeFile(diffPath, PNG.sync.write(diff));
  await writeFile(actualPath, screenshot);
  throw new Error(
    `Screenshot ${name} differs from its reference in ${differing} of ${total} pixels (${((differing / total) * 100).toFixed(2)} %, ` +
      `at most ${(MAX_DIFF_RATIO * 100).toFixed(2)} % allowed; ${actual.width}×${actual.height} against ${expected.width}×${expected.height}). ` +
      `Diff: ${diffPath}; new: ${actualPath}; reference: ${referencePath}. If the change is meant, run with UPDATE_SCREENSHOTS=1.`,
  );
}
