import { connect } from 'node:net';
import type { Transporter } from 'nodemailer';
import type { InvoicingConfig } from '../../config';

export interface MailMessage {
  to: string;
  /** Whom the message is from, shown as "<fromName> via <platform>" (MAIL_FROM's name) at MAIL_FROM's address; MAIL_FROM alone without it. */
  fromName?: string;
  /** Where a reader's reply goes (the merchant's e-mail). */
  replyTo?: string;
  /** The message's language (`Content-Language`). */
  language?: string;
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
  const platform = senderOf(config.MAIL_FROM);
  return {
    concurrency: config.SMTP_POOL_SIZE * 4,
    async send(message) {
      transport ??= import('nodemailer').then((nodemailer) => smtpTransport(nodemailer.default, config));
      await (await transport).sendMail({
        from: message.fromName ? { name: `${headerText(message.fromName)} via ${platform.name}`, address: platform.address } : config.MAIL_FROM,
        replyTo: message.replyTo,
        to: message.to,
        subject: headerText(message.subject),
        text: message.text,
        html: message.html,
        headers: message.language ? { 'Content-Language': message.language } : undefined,
      });
    },
    close: () => void transport?.then((t) => t.close(), () => undefined),
  };
}

/**
 * MAIL_FROM (`Payments <no-reply@payments.local>`) as its name, the platform's, and address. A bare
 * address is its own name.
 */
export function senderOf(mailFrom: string): { name: string; address: string } {
  const m = /^\s*"?([^"<]*?)"?\s*<([^<>\s]+)>\s*$/.exec(mailFrom);
  return m ? { name: m[1]! || m[2]!, address: m[2]! } : { name: mailFrom.trim(), address: mailFrom.trim() };
}

/**
 * Text for a header: no line breaks or other control characters, which could end the header and
 * start another (a merchant's name is checked when set; this holds whatever reaches a header).
 * nodemailer then quotes and encodes it (RFC 2047 for non-ASCII), so `"`, `<` or `,` in a name
 * stay part of the name.
 */
export function headerText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
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
    // waits for the server's delayed ACK, ~40 ms per message on each connection. Handed over
    // while still connecting, so that nodemailer's own handlers see a refused or failed
    // connection: an error passed to this callback instead leaves the pool's slot taken for
    // good (nodemailer 8's PoolResource neither frees nor reuses it), and once every slot is
    // taken so, each later message waits for a free one forever (mailer.test.ts).
    getSocket: config.SMTP_SECURE
      ? undefined
      : (options: { host?: string; port?: number }, callback: (err: Error | null, socket?: { connection: import('node:net').Socket }) => void) => {
          const socket = connect({ host: options.host ?? config.SMTP_HOST, port: options.port ?? config.SMTP_PORT });
          socket.setNoDelay(true);
          callback(null, { connection: socket });
        },
  } as Parameters<typeof nodemailer.createTransport>[0]);
}
