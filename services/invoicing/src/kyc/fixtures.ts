// Test material for KYC: camera-like pictures and machine-readable zones with real check digits.
import request from 'supertest';
import sharp from 'sharp';
import type { Express } from 'express';

/** mulberry32: a small seeded generator, so a picture's scene is the same on every run. */
function seeded(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

let nextSeed = 1;

/**
 * A fresh camera-like picture (a new one every call, so two calls are two different pictures):
 * shapes give it structure, like a scene, and grain gives it a photo's fine detail.
 * Sharp and mid-grey unless blurred or darkened. The scene comes from `seed` (by default the
 * next of a sequence), never from Math.random: how soft a soft picture scores depends on its
 * edges, and a test must not pass or fail by the draw.
 */
export async function photo(
  o: {
    width?: number;
    height?: number;
    blur?: number;
    format?: 'png' | 'jpeg';
    dark?: boolean;
    /** Grain strength (default 18): less is a softer picture. */
    grain?: number;
    seed?: number;
  } = {},
): Promise<Buffer> {
  const rnd = seeded(o.seed ?? nextSeed++);
  const width = o.width ?? 640;
  const height = o.height ?? 480;
  const grey = () => (o.dark ? 5 + rnd(30) : 60 + rnd(140));
  const shapes = Array.from({ length: 12 }, () =>
    rnd(2) === 0
      ? `<circle cx="${rnd(width)}" cy="${rnd(height)}" r="${20 + rnd(width / 4)}" fill="rgb(${grey()},${grey()},${grey()})"/>`
      : `<rect x="${rnd(width)}" y="${rnd(height)}" width="${40 + rnd(width / 2)}" height="${40 + rnd(height / 2)}" fill="rgb(${grey()},${grey()},${grey()})"/>`,
  ).join('');
  const bg = o.dark ? 15 : 128;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="rgb(${bg},${bg},${bg})"/>${shapes}</svg>`;
  const grain = await sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: o.grain ?? (o.dark ? 4 : 18) } } }).png().toBuffer();
  let img = sharp(Buffer.from(svg)).composite([{ input: grain, blend: 'overlay' }]);
  if (o.blur) img = sharp(await img.png().toBuffer()).blur(o.blur);
  return o.format === 'jpeg' ? img.jpeg({ quality: 90 }).toBuffer() : img.png().toBuffer();
}

/** ICAO 9303 check digit: weights 7, 3, 1; digits as themselves, A–Z as 10–35, `<` as 0. */
export function checkDigit(s: string): string {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const v = c === '<' ? 0 : /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 55;
    sum += v * weights[i % 3]!;
  }
  return String(sum % 10);
}

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);

/** A TD3 (passport) zone: two lines of 44 characters, every check digit right. */
export function passportMrz(p: { country: string; lastName: string; firstName: string; number: string; birth: string; expiry: string; sex?: 'M' | 'F' }): string {
  const line1 = pad(`P<${p.country}${p.lastName.toUpperCase()}<<${p.firstName.toUpperCase()}`, 44);
  const num = pad(p.number, 9);
  const personal = pad('', 14);
  const numPart = num + checkDigit(num);
  const birthPart = yymmdd(p.birth) + checkDigit(yymmdd(p.birth));
  const expiryPart = yymmdd(p.expiry) + checkDigit(yymmdd(p.expiry));
  const personalPart = personal + checkDigit(personal);
  const composite = checkDigit(numPart + birthPart + expiryPart + personalPart);
  const line2 = numPart + p.country + birthPart + (p.sex ?? 'F') + expiryPart + personalPart + composite;
  return `${line1}\n${line2}`;
}

const year = new Date().getUTCFullYear();
/** An adult with a passport valid for years, and its zone. */
export const PERSON = { country: 'KAZ', lastName: 'IVANOVA', firstName: 'ANNA', number: 'N12345678', birth: '1990-01-01', expiry: `${year + 4}-06-30` };

/** The verification page's document form for PERSON, with overrides. */
export function documentForm(over: Record<string, string> = {}): Record<string, string> {
  return {
    documentType: 'passport',
    documentNumber: PERSON.number,
    documentCountry: PERSON.country,
    firstName: 'Anna',
    lastName: 'Ivanova',
    middleName: 'Sergeevna',
    dateOfBirth: PERSON.birth,
    documentIssuedAt: `${year - 2}-06-30`,
    documentExpiresAt: PERSON.expiry,
    mrz: passportMrz(PERSON),
    ...over,
  };
}

/** Posts the page's multipart form as a browser does: fresh pictures unless given (null leaves one out). */
export async function postDocuments(app: Express, sessionId: string, form: Record<string, string>, files: Record<string, Buffer | null> = {}) {
  let req = request(app).post(`/kyc/${sessionId}`);
  for (const [k, v] of Object.entries(form)) req = req.field(k, v);
  const all: Record<string, Buffer | null> = { document: await photo(), selfie: await photo({ format: 'jpeg' }), ...files };
  for (const [k, v] of Object.entries(all)) if (v) req = req.attach(k, v, `${k}.bin`);
  return req;
}
