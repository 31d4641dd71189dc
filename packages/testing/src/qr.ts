import jsQR from 'jsqr';
import { PNG } from 'pngjs';

/** Decodes a QR data URI the way a phone camera reads the image: pixels in, text out. */
export function decodeQrDataUri(uri: string): string | null {
  const png = PNG.sync.read(Buffer.from(uri.replace(/^data:image\/png;base64,/, ''), 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}
