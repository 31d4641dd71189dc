import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps what it receives: the
 * mailbox of invoicing's batch e-mails in its tests, e2e and the bench.
 * `port` picks the port (a test that brings a server back where it was down); any free one otherwise.
 * `refuse(address)` makes the server refuse that recipient (a 550) until `accept` is called.
 */
export async function startTestSmtp(opts: { port?: number } = {}) {
  const received: ReceivedMail[] = [];
  const refused = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    // No reverse DNS of the client: offline, each lookup would wait for its timeout.
    disableReverseLookup: true,
    logger: false,
    size: 1024 * 1024,
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address)) return callback(Object.assign(new Error(`Mailbox ${address.address} unavailable`), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    refuse: (address: string) => refused.add(address),
    accept: (address: string) => refused.delete(address),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
