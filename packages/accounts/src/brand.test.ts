import { randomUUID } from 'node:crypto';
import { SecretBox } from '@pay/auth';
import { testDb } from '@pay/db/src/testing';
import { ApiError } from '@pay/schemas';
import { brandStylesheetPath, brandStylesheets, contrastRatio, merchantBrand, registerMerchant, setMerchantBrand, textColorOn, MAX_LOGO_BYTES } from './index';

// A caller's client as a service passes it: its search_path is not `accounts`.
const db = testDb('public', 2);
const box = SecretBox.fromEnv(process.env.SECRETS_KEY);
afterAll(() => db.$close());

const register = async (companyName = 'Acme Ltd') =>
  (await registerMerchant(db, box, { companyName, email: `Brand-${randomUUID()}@Example.test`, address: '1 Main St' })).merchant;

/** The smallest valid PNG (1×1, transparent) and a JPEG's first bytes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60)]);

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

describe('merchantBrand', () => {
  it('shows a new merchant as its companyName, with no logo or colour, in Russian, replies to its e-mail', async () => {
    const m = await register('Ромашка ООО');
    expect(await merchantBrand(db, m.id)).toEqual({
      displayName: 'Ромашка ООО',
      logoUrl: null,
      brandColor: null,
      brandTextColor: null,
      defaultLanguage: 'ru',
      email: m.email,
    });
  });

  it('is NOT_FOUND for a merchant that does not exist', async () => {
    expect((await refusal(merchantBrand(db, randomUUID()))).code).toBe('NOT_FOUND');
    expect((await refusal(setMerchantBrand(db, randomUUID(), { displayName: 'X' }))).code).toBe('NOT_FOUND');
  });

  it('sets the name, colour, logo and language, changes one without the others, and clears them', async () => {
    const m = await register();
    const set = await setMerchantBrand(db, m.id, { displayName: '  Acme Coffee  ', brandColor: '#0B3D91', logo: PNG, defaultLanguage: 'kk' });
    expect(set).toEqual({
      displayName: 'Acme Coffee',
      logoUrl: `data:image/png;base64,${PNG.toString('base64')}`,
      brandColor: '#0b3d91',
      brandTextColor: '#ffffff',
      defaultLanguage: 'kk',
      email: m.email,
    });
    expect(await merchantBrand(db, m.id)).toEqual(set);
    const yellow = await setMerchantBrand(db, m.id, { brandColor: '#ffd500', logo: JPEG });
    expect(yellow).toMatchObject({ displayName: 'Acme Coffee', brandColor: '#ffd500', brandTextColor: '#000000', defaultLanguage: 'kk' });
    expect(yellow.logoUrl).toBe(`data:image/jpeg;base64,${JPEG.toString('base64')}`);
    expect(await setMerchantBrand(db, m.id, { displayName: null, brandColor: null, logo: null })).toMatchObject({
      displayName: 'Acme Ltd',
      logoUrl: null,
      brandColor: null,
      brandTextColor: null,
      defaultLanguage: 'kk',
    });
  });

  it('refuses bad values with VALIDATION_ERROR naming each field, and writes none of them', async () => {
    const m = await register();
    await setMerchantBrand(db, m.id, { displayName: 'Kept' });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const err = await refusal(
      setMerchantBrand(db, m.id, { displayName: 'Evil\r\nBcc: all@example.test', brandColor: 'red', logo: svg, defaultLanguage: 'de' }),
    );
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details?.map((d) => d.field)).toEqual(['displayName', 'brandColor', 'defaultLanguage', 'logo']);
    for (const input of [{ displayName: '   ' }, { displayName: 'Shop \u202eTRATS' }, { displayName: 'x'.repeat(101) }, { brandColor: '#12345' }, { brandColor: '#12345g' }, { logo: Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES)]) }]) {
      expect((await refusal(setMerchantBrand(db, m.id, input))).code).toBe('VALIDATION_ERROR');
    }
    expect(await merchantBrand(db, m.id)).toMatchObject({ displayName: 'Kept', brandColor: null, logoUrl: null, defaultLanguage: 'ru' });
  });
});

describe('textColorOn', () => {
  it('picks black or white text with at least 4.58:1 contrast on any colour (the two ratios multiply to 21: the better is ≥ √21)', () => {
    expect(textColorOn('#000000')).toBe('#ffffff');
    expect(textColorOn('#ffffff')).toBe('#000000');
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    // Every 6th step of each channel: 44 ** 3 colours, the worst case included (mid-grey, ~4.58:1).
    let worst = 21;
    for (let r = 0; r < 256; r += 6)
      for (let g = 0; g < 256; g += 6)
        for (let b = 0; b < 256; b += 6) {
          const c = `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
          worst = Math.min(worst, contrastRatio(c, textColorOn(c)));
        }
    // What brand.ts promises (≥ 4.58:1), not only WCAG AA's 4.5, so the promise cannot drift unseen.
    expect(worst).toBeGreaterThanOrEqual(Math.sqrt(21));
    expect(worst).toBeLessThan(4.7);
  });
});

describe('brandStylesheets', () => {
  it('serves the colour with its contrasting text colour, for lower-case #rrggbb only', async () => {
    const express = (await import('express')).default;
    const request = (await import('supertest')).default;
    const app = express().use(brandStylesheets());
    const css = await request(app).get('/brand/ffd500.css').expect(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toContain('immutable');
    expect(css.text).toContain('.brand{background-color:#ffd500;color:#000000');
    expect(brandStylesheetPath({ brandColor: '#FFD500' })).toBe('/brand/ffd500.css');
    expect(brandStylesheetPath({ brandColor: null })).toBeNull();
    for (const bad of ['/brand/FFD500.css', '/brand/ffd50.css', '/brand/ffd500.css.map', '/brand/x%7d.css']) await request(app).get(bad).expect(404);
  });
});
