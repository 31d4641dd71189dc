import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** One hostile request body for an upload route, with the headers that go with it. */
export interface MultipartAbuse {
  name: string;
  body: Buffer;
  headers: Record<string, string>;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function form(parts: { field: string; filename?: string; bytes: Buffer }[], o: { close?: boolean } = {}): { body: Buffer; contentType: string } {
  const boundary = `----abuse${randomBytes(8).toString('hex')}`;
  const chunks = parts.flatMap((p) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"${p.filename ? `; filename="${p.filename}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n`,
    ),
    p.bytes,
    Buffer.from('\r\n'),
  ]);
  if (o.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Bodies an upload route must refuse with a 4xx, and without writing anything (issue 12,
 * multipart abuse): not multipart at all, a multipart type without its boundary, a body cut off
 * in the middle of its file, far more files or fields than the route takes, a file under a
 * field the route does not have, a text field of megabytes, and a gzip "decompression bomb"
 * (100 MB of zeros in 100 KB, sent with Content-Encoding: gzip). `fileField` is one of the
 * route's file fields.
 */
export function multipartAbuses(fileField: string): MultipartAbuse[] {
  const picture = Buffer.concat([PNG_SIGNATURE, randomBytes(2048)]);
  const withType = (name: string, f: { body: Buffer; contentType: string }, extra: Record<string, string> = {}): MultipartAbuse => ({
    name,
    body: f.body,
    headers: { 'Content-Type': f.contentType, ...extra },
  });
  const whole = form([{ field: fileField, filename: 'a.png', bytes: picture }]);
  return [
    { name: 'JSON instead of multipart', body: Buffer.from(JSON.stringify({ [fileField]: picture.toString('base64') })), headers: { 'Content-Type': 'application/json' } },
    { name: 'text/plain', body: picture, headers: { 'Content-Type': 'text/plain' } },
    { name: 'multipart without a boundary', body: whole.body, headers: { 'Content-Type': 'multipart/form-data' } },
    withType('truncated in the middle of the file', { body: whole.body.subarray(0, whole.body.length - 700), contentType: whole.contentType }),
    withType('never closed', form([{ field: fileField, filename: 'a.png', bytes: picture }], { close: false })),
    withType('200 files', form(Array.from({ length: 200 }, () => ({ field: fileField, filename: 'a.png', bytes: picture })))),
    withType('a file under an unknown field', form([{ field: '__proto__', filename: 'a.png', bytes: picture }])),
    withType('5,000 text fields', form(Array.from({ length: 5000 }, (_, i) => ({ field: `f${i}`, bytes: Buffer.from('x') })))),
    withType('a 3 MB text field', form([{ field: 'description', bytes: Buffer.alloc(3 * 1024 * 1024, 0x61) }])),
    withType('a gzip bomb', { body: gzipSync(Buffer.alloc(100 * 1024 * 1024)), contentType: whole.contentType }, { 'Content-Encoding': 'gzip' }),
  ];
}
