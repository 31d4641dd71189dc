import aws4 from 'aws4';
import { assertStorageKey, type ReceiptStorage } from './storage';

export interface S3Options {
  /** e.g. https://s3.eu-central-1.amazonaws.com, or an S3-compatible server (MinIO, Ceph, Yandex Object Storage). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Requests time out after this (the check retries the job). */
  timeoutMs?: number;
}

/**
 * S3-compatible storage over plain HTTPS with AWS Signature V4 (`aws4` signs, `fetch` sends):
 * PutObject, GetObject and DeleteObject are all receipts need, so the SDK's weight is not. Path-style
 * addressing (`<endpoint>/<bucket>/<key>`), which every S3-compatible server accepts.
 * The payload is signed too (`x-amz-content-sha256` of the bytes), so a body altered in
 * transit is refused by the server.
 */
export class S3Storage implements ReceiptStorage {
  readonly name = 's3';
  private readonly base: URL;

  constructor(private readonly opts: S3Options) {
    this.base = new URL(opts.endpoint);
  }

  private async send(method: 'PUT' | 'GET' | 'DELETE', key: string, body?: Buffer, contentType?: string): Promise<Response> {
    assertStorageKey(key);
    const path = `${this.base.pathname.replace(/\/$/, '')}/${encodeURIComponent(this.opts.bucket)}/${key}`;
    const headers: Record<string, string> = {};
    if (contentType) headers['Content-Type'] = contentType;
    const signed = aws4.sign(
      { host: this.base.host, path, method, service: 's3', region: this.opts.region, headers, body, protocol: this.base.protocol },
      { accessKeyId: this.opts.accessKeyId, secretAccessKey: this.opts.secretAccessKey },
    );
    const sent = Object.fromEntries(Object.entries(signed.headers ?? {}).map(([k, v]) => [k, String(v)]));
    // fetch sets Host and Content-Length itself.
    delete sent.Host;
    delete sent['Content-Length'];
    const res = await fetch(`${this.base.protocol}//${this.base.host}${path}`, {
      method,
      headers: sent,
      body,
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
    });
    if (!res.ok) {
      const text = (await res.text()).slice(0, 300);
      throw new Error(`S3 ${method} ${key} answered ${res.status}: ${text}`);
    }
    return res;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.send('PUT', key, bytes, contentType);
  }

  async get(key: string): Promise<Buffer> {
    const res = await this.send('GET', key);
    return Buffer.from(await res.arrayBuffer());
  }

  async delete(key: string): Promise<void> {
    await this.send('DELETE', key);
  }
}
