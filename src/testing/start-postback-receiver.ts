/**
 * A postback receiver for tests: a node HTTP server on 127.0.0.1 that records every POST (path, headers,
 * raw body) and answers with the status a handed-in function picks (default 200), e.g. 500 three times then 200.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';

/** One received request. */
export interface ReceivedPostback {
  /** Path and query, e.g. `/hook?a=1`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The raw body as received. */
  readonly body: string;
  /** The status this request was answered with. */
  readonly answeredWith: number;
}

/** Options of {@link startPostbackReceiver}. */
export interface PostbackReceiverOptions {
  /** Answer the first `failFirst` requests (counted over all paths) with 500, the rest with 200. */
  readonly failFirst?: number;
  /** The status to answer request number `n` (0-based, counted over all requests) to `path` with; wins over `failFirst`. */
  readonly respond?: (n: number, path: string) => number;
  /** Milliseconds to wait before answering request number `n` (default 0): keeps deliveries in flight. */
  readonly delayMs?: (n: number) => number;
}

/** A running receiver. */
export interface PostbackReceiver {
  /** `http://127.0.0.1:<port>` (append any path). */
  readonly url: string;
  /** Every request, in the order answered (also the refused ones; a request cut off before its answer is not listed). */
  readonly received: ReceivedPostback[];
  close(): Promise<void>;
}

/**
 * Starts a receiver on a free port of 127.0.0.1.
 *
 * @example
 * const receiver = await startPostbackReceiver({ failFirst: 3 }); // or respond: (n, path) => status
 * // PostbackUrl: `${receiver.url}/hook`; later: receiver.received.filter((r) => r.answeredWith === 200)
 */
export async function startPostbackReceiver(options: PostbackReceiverOptions = {}): Promise<PostbackReceiver> {
  const received: ReceivedPostback[] = [];
  const failFirst = options.failFirst ?? 0;
  const respond = options.respond ?? ((n: number) => (n < failFirst ? 500 : 200));
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = count++;
      const status = respond(n, path);
      const answer = () => {
        received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answeredWith: status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      };
      const delay = options.delayMs?.(n) ?? 0;
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
