/**
 * The machine a benchmark run measured: CPU model (from /proc/cpuinfo where there is one), logical cores, memory, OS,
 * Node version and the load average at the start, so every table of a run can be read against the hardware.
 */
import { readFileSync } from 'node:fs';
import { arch, cpus, loadavg, release, totalmem, type } from 'node:os';

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly loadAverage: readonly [number, number, number];
}

function cpuModelFromProc(): string | undefined {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => /^model name\s*:/.test(l));
    return line?.split(':').slice(1).join(':').trim() || undefined;
  } catch {
    return undefined;
  }
}

function osName(): string {
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    if (pretty) return `${pretty} (${type()} ${release()}, ${arch()})`;
  } catch {
    // not Linux: the os module's names follow
  }
  return `${type()} ${release()} (${arch()})`;
}

export function describeMachine(): MachineDescription {
  const [one, five, fifteen] = loadavg();
  return {
    cpuModel: cpuModelFromProc() ?? cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: totalmem() / 1024 ** 3,
    os: osName(),
    node: process.version,
    loadAverage: [one ?? 0, five ?? 0, fifteen ?? 0],
  };
}

/** The machine as Markdown lines, the header of every results file. */
export function formatMachine(machine: MachineDescription): string {
  return [
    `- CPU: ${machine.cpuModel}, ${machine.cores} logical cores`,
    `- Memory: ${machine.memoryGiB.toFixed(1)} GiB`,
    `- OS: ${machine.os}`,
    `- Node: ${machine.node}`,
    `- Load average at start (1/5/15 min): ${machine.loadAverage.map((l) => l.toFixed(2)).join(' / ')}`,
  ].join('\n');
}
