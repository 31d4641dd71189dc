import { PNG } from 'pngjs';
import { openBrowser } from '@pay/testing';
import { imageSize } from './image-size';

describe('imageSize', () => {
  it('reads PNG and JPEG headers', async () => {
    const png = PNG.sync.write(new PNG({ width: 37, height: 21 }));
    expect(imageSize(png, 'image/png')).toEqual({ width: 37, height: 21 });
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 321, height: 123 });
      // A page with content, loaded: a blank new page may have no frame drawn yet, and its
      // screenshot then fails now and then ("Unable to capture screenshot", seen in CI).
      await page.setContent('<body style="margin:0;background:#fff">x</body>');
      const jpeg = await page.screenshot({ type: 'jpeg' });
      expect(imageSize(jpeg, 'image/jpeg')).toEqual({ width: 321, height: 123 });
    } finally {
      await browser.close();
    }
  });

  it('gives up on a header it cannot read', () => {
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg')).toBeNull();
    expect(imageSize(Buffer.alloc(10), 'image/png')).toBeNull();
  });
});
