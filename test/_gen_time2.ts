import fc from 'fast-check';
import { createTransactionRequest } from '../src/testing/transaction-arbitraries.js';
import { startTestService } from '../src/testing/index.js';
const samples = fc.sample(createTransactionRequest(), { numRuns: 200, seed: 11 });
const service = await startTestService();
const times: number[] = [];
for (const request of samples) {
  const t = performance.now();
  await service.client.request('POST', '/api/transaction', { json: request });
  times.push(performance.now() - t);
}
const simple: number[] = [];
for (let i = 0; i < 50; i++) { const t = performance.now(); await service.client.request('POST', '/api/transaction', { json: { Seal: true } }); simple.push(performance.now() - t); }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(1);
console.log('generated: median', med(times), 'max', Math.max(...times).toFixed(0), '; {Seal:true}: median', med(simple));
const slow = samples.map((s, i) => [times[i]!, (s.Signers ?? []).length, JSON.stringify(s).length] as const).sort((a, b) => b[0] - a[0]).slice(0, 5);
console.log(slow);
await service.dispose();
