/**
 * The processes that read uploaded PDFs get none of the service's secrets: a document that took one over would find
 * no master key, SMTP password or database URL in its environment.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runPdfJob } from '../../src/service/pdf-jobs/pdf-work.js';
import { makePdf } from '../helpers/service-harness.js';

const SECRET = 'pdf-process-must-not-see-this-3f9a';

describe('PDF processes', () => {
  it.runIf(process.platform === 'linux')('start without the service environment: no PARAPH_ variable, no secret value', async () => {
    process.env.PARAPH_MASTER_KEY = SECRET;
    process.env.PARAPH_SMTP_URL = `smtp://user:${SECRET}@127.0.0.1:2525`;
    try {
      expect(await runPdfJob({ kind: 'facts', bytes: await makePdf([['Secret test']]) })).toMatchObject({});
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.trim())
        .filter((pid) => pid !== '');
      const environments = children.flatMap((pid) => {
        try {
          return [readFileSync(`/proc/${pid}/environ`, 'latin1')];
        } catch {
          return []; // ended meanwhile (ps itself)
        }
      });
      expect(environments.length).toBeGreaterThan(0);
      for (const environment of environments) {
        expect(environment).not.toContain(SECRET);
        expect(environment.split('\0').filter((entry) => entry.startsWith('PARAPH_'))).toEqual([]);
        expect(environment).toContain('PATH=');
      }
    } finally {
      delete process.env.PARAPH_MASTER_KEY;
      delete process.env.PARAPH_SMTP_URL;
    }
  });
});
