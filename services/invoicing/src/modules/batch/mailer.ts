import { connect } from 'node:net';
import type { Transporter } from 'nodemailer';
import type { InvoicingConfig } from '../../config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The same message as HTML (a multipart/alternative part), for mail clients that show it: links a reader can click. */
  html?: string;
}

/** Outgoing e-mail: one SMTP transport per process. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** How many messages may be in flight at once (the pool's connections). */
  readonly concurrency: number;
  close(): void;
}

type SmtpConfig = Pick<InvoicingConfig, 'SMTP_HOST' | 'SMTP_PORT' | 'SMTP_SECURE' | 'SMTP_USER' | 'SMTP_PASSWORD' | 'SMTP_POOL_SIZE' | 'MAIL_FROM'>;

/**
 * nodemailer over a pool of SMTP connections (SMTP_HOST, SMTP_PORT…): a message on an open
 * connection costs ~2 ms against ~100 ms for a new connection each. nodemailer is loaded with
 * the first message (it adds ~13 MB to a process), so a process that sends none never loads it.
 */
export function smtpMailer(config: SmtpConfig): Mailer {
  let transport: Promise<Transporter> | undefined;
  return {
    concurrency: config.SMTP_POOL_SIZE * 4,
    async send(message) {
      transport ??= import('nodemailer').then((nodemailer) => smtpTransport(nodemailer.default, config));
      await (await transport).sendMail({ from: config.MAIL_FROM, to: message.to, subject: message.subject, text: message.text, html: message.html });
    },
    close: () => void transport?.then((t) => t.close(), () => undefined),
  };
}

function smtpTransport(nodemailer: typeof import('nodemailer'), config: SmtpConfig): Transporter {
  return nodemailer.createTransport({
    pool: true,
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    maxConnections: config.SMTP_POOL_SIZE,
    maxMessages: Infinity,
    auth: config.SMTP_USER ? { user: config.SMTP_USER, pass: config.SMTP_PASSWORD ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    // Our own socket, with Nagle off: a message's last small write (the closing dot) otherwise
    // waits for the server's delayed ACK, ~40 ms per message on each connection.
    getSocket: config.SMTP_SECURE
      ? undefined
      : (options: { host?: string; port?: number }, callback: (err: Error | null, socket?: { connection: import('node:net').Socket }) => void) => {
          const socket = connect({ host: options.host ?? config.SMTP_HOST, port: options.port ?? config.SMTP_PORT });
          socket.setNoDelay(true);
          const fail = (err: Error) => callback(err);
          socket.once('error', fail);
          socket.once('connect', () => {
            socket.off('error', fail);
            callback(null, { connection: socket });
          });
        },
  } as Parameters<typeof nodemailer.createTransport>[0]);
}
