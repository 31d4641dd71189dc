import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';

const SCALE = 4;
const MARGIN = 2;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * The QR code of `payload` as a `data:image/png;base64,…` URI. The matrix comes from the
 * `qrcode` library (error correction M); the PNG is written here as 1-bit greyscale, which
 * costs about a quarter of the library's RGBA PNG (≈0.9 ms against ≈3.4 ms) for the same
 * image. Invoices store the result at creation, so no read ever draws one.
 */
export function qrPngDataUri(payload: string): string {
  const qr = QRCode.create(payload, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const px = (size + 2 * MARGIN) * SCALE;
  const rowBytes = Math.ceil(px / 8);
  // Each scanline: a filter byte (0 = none), then the pixels, 1 bit each, 1 = white.
  const raw = Buffer.alloc((rowBytes + 1) * px, 0);
  for (let y = 0; y < px; y++) {
    const my = Math.floor(y / SCALE) - MARGIN;
    const row = y * (rowBytes + 1) + 1;
    for (let x = 0; x < px; x++) {
      const mx = Math.floor(x / SCALE) - MARGIN;
      const dark = mx >= 0 && my >= 0 && mx < size && my < size && qr.modules.get(my, mx) === 1;
      if (!dark) raw[row + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(px, 0);
  header.writeUInt32BE(px, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const png = Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
  return `data:image/png;base64,${png.toString('base64')}`;
}
