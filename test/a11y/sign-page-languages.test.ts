/**
 * Screenshots of every state of the signing, show and receipt pages (walk.ts) in fr-FR, es-ES, it-IT and pl-PL
 * (en-US, nl-NL and de-DE are walked with axe-core in sign-page-a11y.test.ts), alternately on a phone and a
 * desktop, each in its own language, without sideways scrolling, outside requests, CSP violations or script errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignerService, type SignerService } from '../service/signer/signer-fixture.js';
import { walk, WALK_STATES } from './walk.js';

let s: SignerService;

beforeAll(async () => {
  s = await startSignerService();
}, 60_000);

afterAll(async () => {
  await s.service.dispose();
});

describe('signing page in every language', () => {
  for (const [lang, viewport] of [['fr-FR', 'phone'], ['es-ES', 'desktop'], ['it-IT', 'phone'], ['pl-PL', 'desktop']] as const) {
    it(`${lang} on a ${viewport}: a screenshot of every state`, async () => {
      const result = await walk(s, lang, viewport, { axe: false });
      expect(result.states.length).toBe(WALK_STATES);
      expect(result.overflow).toEqual({});
      expect(result.problems).toEqual([]);
    }, 120_000);
  }
});
