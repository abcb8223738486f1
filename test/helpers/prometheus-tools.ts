/**
 * Debian's `prometheus` package (prometheus and promtool), which .ci/run installs: the metrics and alert-rule tests
 * run the real programs. A missing program fails the test with what to install, rather than skipping it.
 */
import { execFileSync } from 'node:child_process';

/** The path of `prometheus` or `promtool`; throws naming the package when it is not installed. */
export function prometheusTool(name: 'prometheus' | 'promtool'): string {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${name} is not installed: install Debian's prometheus package (apt-get install -y prometheus), as .ci/run does.`);
  }
}
