import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { startTestSmtp } from '@pay/testing';
import { loadInvoicingConfig } from '../../load-config';
import { smtpMailer } from './mailer';

const config = (port: number) => ({ ...loadInvoicingConfig(process.env), SMTP_PORT: port, SMTP_POOL_SIZE: 3 });
const message = (n: number) => ({ to: `payer-${n}@example.com`, subject: `Invoice ${n}`, text: 'Pay the invoice.' });

/** A loopback port with nothing listening on it: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Settles within `ms`, or says it hung: a send that never settles holds its batch's job, and the worker's close, forever. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still unsettled after ${ms} ms`)), ms).unref())]);
}

describe('the SMTP mailer when the server is down', () => {
  // fresh-ci saw a test file's batch e-mail job never end: each refused connection left a dead
  // slot in nodemailer's pool, and once the pool's slots were all dead the next message waited
  // for a free one forever.
  it('fails every send with the connection error, however many, and sends again once the server is back', async () => {
    const port = await closedPort();
    const mailer = smtpMailer(config(port));
    try {
      // Three times the pool's size, one after another and then together.
      for (let n = 0; n < 9; n++) await expect(within(mailer.send(message(n)), 15_000)).rejects.toThrow(/ECONNREFUSED/);
      const together = await Promise.allSettled(Array.from({ length: 9 }, (_, n) => within(mailer.send(message(10 + n)), 15_000)));
      expect(together.map((r) => (r.status === 'rejected' ? String(r.reason) : 'sent'))).toEqual(Array(9).fill(expect.stringMatching(/ECONNREFUSED/)));

      // The server comes up on that port: the same mailer delivers.
      const smtp = await startTestSmtp({ port });
      try {
        await within(mailer.send(message(99)), 15_000);
        expect(smtp.received.map((m) => m.to)).toEqual([['payer-99@example.com']]);
      } finally {
        // The pool's connection first: the server's close waits for its clients to leave.
        mailer.close();
        await smtp.close();
      }
    } finally {
      mailer.close();
    }
  }, 120_000);

  it('fails a send whose server accepts the connection and says nothing, after the greeting timeout', async () => {
    const held = new Set<Socket>();
    const silent: Server = createServer((socket) => void held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const mailer = smtpMailer(config((silent.address() as AddressInfo).port));
    try {
      await expect(within(mailer.send(message(1)), 30_000)).rejects.toThrow(/Greeting never received/);
    } finally {
      mailer.close();
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 60_000);
});
