/**
 * An SMTP server for tests: `smtp-server` on 127.0.0.1 accepting every mail (no TLS, any login) and
 * keeping the raw messages with their envelope; parse them with `mailparser`'s `simpleParser`. `smtp-server` is an
 * optional peer dependency, loaded here only, so `paraph/testing` imports without it.
 */
import { ParaphError } from '../errors.js';

/** One received mail. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  /** The raw RFC 5322 message. */
  readonly raw: Buffer;
}

/** Options of {@link startSmtpSink}. */
export interface SmtpSinkOptions {
  /** Refuse the recipient with this SMTP code (e.g. 550) when the function says so. */
  readonly refuseRecipient?: (address: string) => number | undefined;
}

/** A running SMTP sink. */
export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>` (for PARAPH_SMTP_URL). */
  readonly url: string;
  readonly received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * Starts an SMTP sink on a free port of 127.0.0.1.
 *
 * @example
 * const sink = await startSmtpSink();
 * // PARAPH_SMTP_URL=sink.url; later: await simpleParser(sink.received[0].raw)
 */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const { SMTPServer } = await loadSmtpServer();
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = options.refuseRecipient?.(address.address);
      if (code !== undefined) {
        const error = new Error(`recipient ${address.address} refused`) as Error & { responseCode: number };
        error.responseCode = code;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function loadSmtpServer(): Promise<typeof import('smtp-server')> {
  try {
    return await import('smtp-server');
  } catch (cause) {
    throw new ParaphError('OPTIONAL_DEPENDENCY_MISSING', 'startSmtpSink needs the optional peer dependency "smtp-server": npm install --save-dev smtp-server', {
      origin: 'internal',
      cause,
    });
  }
}
