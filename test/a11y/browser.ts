/**
 * Chromium helpers of the accessibility tests: Debian's /usr/bin/chromium through playwright-core, a
 * page that records outside requests, CSP violations and script errors, axe-core injected through the DevTools
 * protocol (the page's CSP forbids inline scripts, so no script tag), and Chromium's accessibility tree.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'sign-page');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The axe-core tags of WCAG 2.0, 2.1 and 2.2 levels A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Viewports: a desktop, a phone, and a 1280 px desktop at 400 % zoom (320 CSS px). */
export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 900 } },
  phone: { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  zoom400: { viewport: { width: 320, height: 256 }, deviceScaleFactor: 4 },
} as const;

export type ViewportName = keyof typeof VIEWPORTS;

/** A browser window with the problems it saw. */
export interface Window {
  readonly page: Page;
  readonly problems: string[];
  close(): Promise<void>;
}

/** A fresh browser (own user-data-dir) whose only allowed origins are `origins`. */
export async function openWindow(
  viewport: ViewportName,
  origins: readonly string[],
  options: { reducedMotion?: boolean; locale?: string; deviceScaleFactor?: number } = {},
): Promise<Window> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
    ...VIEWPORTS[viewport],
    ...(options.reducedMotion ? { reducedMotion: 'reduce' as const } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
    ...(options.deviceScaleFactor ? { deviceScaleFactor: options.deviceScaleFactor } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!origins.some((o) => url.startsWith(o)) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.push(`outside request: ${url}`);
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`csp: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return {
    page,
    problems,
    close: async () => {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The ids of the axe rules that {@link axeViolations} runs. */
export async function axeRules(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate<string[]>(`axe.getRules(${JSON.stringify(WCAG_TAGS)}).map((r) => r.ruleId)`);
}

/** The WCAG 2.0/2.1/2.2 A and AA violations axe finds on the page, one line each (empty when none). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate<{ violations: { id: string; help: string; nodes: { target: string[]; failureSummary?: string }[] }[] }>(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_TAGS)} }, resultTypes: ['violations'] })`,
  );
  return results.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.help}) at ${n.target.join(' ')}: ${n.failureSummary ?? ''}`));
}

/** What one axe rule found: the targets (CSS selectors) it passed, failed, or could not decide. */
export interface AxeRuleResult {
  readonly passes: string[];
  readonly violations: string[];
  readonly incomplete: string[];
}

/** Runs one axe rule on the page, whatever its tags (e.g. `target-size`, WCAG 2.2 AA 2.5.8). */
export async function axeRule(page: Page, ruleId: string): Promise<AxeRuleResult> {
  await page.evaluate(axeSource);
  const results = await page.evaluate<Record<'passes' | 'violations' | 'incomplete', { nodes: { target: string[] }[] }[]>>(
    `axe.run(document, { runOnly: { type: 'rule', values: [${JSON.stringify(ruleId)}] } })`,
  );
  const targets = (key: keyof AxeRuleResult) => results[key].flatMap((r) => r.nodes.map((n) => n.target.join(' ')));
  return { passes: targets('passes'), violations: targets('violations'), incomplete: targets('incomplete') };
}

/** One node of Chromium's accessibility tree. */
export interface AxNode {
  readonly role: string;
  readonly name: string;
  readonly ignored: boolean;
  readonly focusable: boolean;
}

/** The full accessibility tree (CDP `Accessibility.getFullAXTree`). */
export async function accessibilityTree(page: Page): Promise<AxNode[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { ignored: boolean; role?: { value?: string }; name?: { value?: string }; properties?: { name: string; value: { value?: unknown } }[] }[];
    };
    return nodes.map((n) => ({
      role: String(n.role?.value ?? ''),
      name: String(n.name?.value ?? ''),
      ignored: n.ignored,
      focusable: n.properties?.some((p) => p.name === 'focusable' && p.value.value === true) ?? false,
    }));
  } finally {
    await cdp.detach();
  }
}

/** Roles of the controls a user operates. */
export const CONTROL_ROLES = new Set(['button', 'link', 'textbox', 'checkbox', 'radio', 'combobox', 'tab', 'switch', 'slider', 'spinbutton', 'searchbox', 'menuitem']);

/** Saves a full-page screenshot as `<name>.png` in the artifacts directory. */
export async function shot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Writes a text artifact. */
export async function artifact(name: string, text: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await writeFile(join(ARTIFACTS, name), text);
}
