// Test material for KYC: camera-like pictures and machine-readable zones with real check digits.
import request from 'supertest';
import sharp, { type OverlayOptions } from 'sharp';
import type { Express } from 'express';
import { facePhoto, type FacePerson } from './test-faces';

/** mulberry32: a small seeded generator of 32-bit numbers, so a picture is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Seeded whole numbers from 0 to n - 1. */
function seeded(seed: number): (n: number) => number {
  const next = mulberry32(seed);
  return (n) => Math.floor((next() / 4294967296) * n);
}

let nextSeed = 1;

/**
 * Camera grain from the seeded generator (libvips' own noise is drawn anew on every call):
 * the face model sees exactly the same pixels on every run, so its scores do not vary by draw.
 */
function grainOf(width: number, height: number, sigma: number, seed: number): OverlayOptions {
  const next = mulberry32(seed);
  // Uint8ClampedArray rounds and clamps; three 10-bit uniforms come from each 32-bit draw, and
  // their sum (mean 1534.5) has a standard deviation of 1024 / 2: scaled by 2·sigma / 1024.
  const px = new Uint8ClampedArray(width * height * 3);
  const k = (2 * sigma) / 1024;
  for (let i = 0; i < px.length; i++) {
    const t = next();
    px[i] = 128 + k * ((t & 1023) + ((t >>> 10) & 1023) + ((t >>> 20) & 1023) - 1534.5);
  }
  return { input: Buffer.from(px.buffer), raw: { width, height, channels: 3 }, blend: 'overlay' };
}

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
  const seed = o.seed ?? nextSeed++;
  const rnd = seeded(seed);
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
  let img = sharp(Buffer.from(svg)).composite([grainOf(width, height, o.grain ?? (o.dark ? 4 : 18), seed + 0x9e3779b9)]);
  if (o.blur) img = sharp(await img.png().toBuffer()).blur(o.blur);
  return o.format === 'jpeg' ? img.jpeg({ quality: 90 }).toBuffer() : img.png().toBuffer();
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Whose data a document picture shows, and in its machine-readable zone. */
export interface Holder {
  country: string;
  lastName: string;
  firstName: string;
  number: string;
  /** `YYYY-MM-DD`. */
  birth: string;
  expiry: string;
  sex?: 'M' | 'F';
}

/** What a document picture's machine-readable zone shows. */
export type ZoneOption =
  /** A TD3 (passport, 2 × 44) or TD1 (identity card, 3 × 30) zone of the holder, every check digit right. */
  | 'passport'
  | 'id_card'
  /** No zone at all (a document without one). */
  | null
  /** These exact lines (a tampered zone, someone else's). */
  | { lines: string };

export interface DocumentOptions {
  person?: FacePerson;
  index?: number;
  portrait?: Buffer;
  /** Whose data the card shows and its zone holds (default PERSON). */
  holder?: Holder;
  /** Default 'passport'. */
  zone?: ZoneOption;
  /** Gaussian blur over the whole photo (a shaky hand). */
  blur?: number;
}

/**
 * A phone photo of an identity document lying on a table: the document (560×360, light blue,
 * its portrait on the left, the holder's data on the right and its machine-readable zone along
 * the bottom, in OCR-B as on real documents: Debian's fonts-ocr-b, installed by
 * scripts/bootstrap.sh) on a camera-like scene, 720×480. The portrait is the `index`-th photo
 * of `person` (default John Simm's first), or `portrait`; the data are `holder`'s (PERSON's).
 */
export function idCard(o: DocumentOptions = {}): Promise<Buffer> {
  return o.portrait ? drawIdCard(o) : once(`card ${JSON.stringify(o)}`, () => drawIdCard(o));
}

/** Pictures drawn from the same options are the same bytes: drawn once per test file. */
const drawn = new Map<string, Promise<Buffer>>();
function once(key: string, draw: () => Promise<Buffer>): Promise<Buffer> {
  let made = drawn.get(key);
  if (!made) drawn.set(key, (made = draw()));
  return made;
}

/** OCR-B's advance is 0.718 em: the font size that gives characters this pitch (px). */
const ocrbSize = (pitch: number) => Math.round((pitch / 0.718) * 10) / 10;

function zoneSvg(lines: string[]): string {
  // A TD3 zone spans the page (12 px a character on this 560 px card), a TD1 one larger
  // characters on a smaller card (16 px): 2.54 mm a character on both, as ICAO 9303 sets.
  const pitch = lines[0]!.length > 36 ? 12 : 16;
  const size = ocrbSize(pitch);
  const lead = Math.round(size * 1.35);
  const x = Math.round((560 - pitch * lines[0]!.length) / 2);
  const bottom = 346;
  return lines
    .map((l, i) => `<text x="${x}" y="${bottom - (lines.length - 1 - i) * lead}" font-family="OCR B" font-size="${size}" fill="#111a24">${escapeXml(l)}</text>`)
    .join('');
}

async function drawIdCard(o: DocumentOptions): Promise<Buffer> {
  const holder = o.holder ?? PERSON;
  const zone = o.zone === undefined ? 'passport' : o.zone;
  const lines = zone === null ? [] : (typeof zone === 'object' ? zone.lines : zone === 'passport' ? passportMrz(holder) : idCardMrz(holder)).split('\n');
  const portrait = await sharp(o.portrait ?? facePhoto(o.person ?? 'John_Simm', o.index ?? 0))
    .resize(180, 180, { kernel: 'lanczos3' })
    .png()
    .toBuffer();
  const text = (x: number, y: number, size: number, s: string, font = 'DejaVu Sans') => `<text x="${x}" y="${y}" font-family="${font}" font-size="${size}" fill="#1c2a3a">${escapeXml(s)}</text>`;
  const field = (y: number, label: string, value: string) => text(230, y, 13, label) + text(230, y + 22, 20, value);
  const title = zone === 'id_card' ? 'IDENTITY CARD · УДОСТОВЕРЕНИЕ' : 'PASSPORT · ПАСПОРТ';
  const card = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="560" height="360"><rect width="560" height="360" rx="18" fill="rgb(196,208,222)"/>` +
      `<rect width="560" height="48" rx="18" fill="rgb(70,96,140)"/><text x="24" y="33" font-family="DejaVu Sans" font-size="22" fill="#fff">${title}</text>` +
      field(82, 'Surname / Тегі', holder.lastName) +
      field(128, 'Given names / Аты', holder.firstName) +
      field(174, 'Date of birth / Туған күні', holder.birth) +
      field(220, 'Document no. / Құжат №', holder.number) +
      (lines.length > 0 ? zoneSvg(lines) : '') +
      '</svg>',
  );
  const cardPng = await sharp(card)
    .composite([{ input: portrait, left: 24, top: 72 }])
    .png()
    .toBuffer();
  const table = await photo({ width: 720, height: 480, seed: 1000 + (o.index ?? 0) });
  let img = sharp(table).composite([{ input: cardPng, left: 80, top: 60 }, grainOf(720, 480, 10, 3000 + (o.index ?? 0))]);
  if (o.blur) img = sharp(await img.png().toBuffer()).blur(o.blur);
  return img.jpeg({ quality: 90 }).toBuffer();
}

/**
 * A selfie: the `index`-th photo of `person`, enlarged to 300×300 in the middle of a
 * camera-like scene (480×480) with a phone camera's grain over it all. `blur` softens it,
 * `dark` underexposes it, `grain` sets the grain (default 10).
 */
export function selfie(o: { person?: FacePerson; index?: number; blur?: number; dark?: boolean; grain?: number; face?: Buffer } = {}): Promise<Buffer> {
  return o.face ? drawSelfie(o) : once(`selfie ${JSON.stringify(o)}`, () => drawSelfie(o));
}

async function drawSelfie(o: Parameters<typeof selfie>[0] & object): Promise<Buffer> {
  const face = await sharp(o.face ?? facePhoto(o.person ?? 'John_Simm', o.index ?? 1))
    .resize(300, 300, { kernel: 'lanczos3' })
    .png()
    .toBuffer();
  const scene = await photo({ width: 480, height: 480, seed: 2000 + (o.index ?? 1) });
  let img = sharp(scene).composite([{ input: face, left: 90, top: 90 }, ...(o.grain === 0 ? [] : [grainOf(480, 480, o.grain ?? 10, 4000 + (o.index ?? 1))])]);
  if (o.blur) img = sharp(await img.png().toBuffer()).blur(o.blur);
  if (o.dark) img = sharp(await img.png().toBuffer()).linear(0.15, 0);
  return img.jpeg({ quality: 90 }).toBuffer();
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
export function passportMrz(p: Holder): string {
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

/**
 * A TD1 (identity card) zone: three lines of 30 characters, every check digit right, the
 * composite one over the number, birth and expiry dates and optional data (ICAO 9303-5).
 */
export function idCardMrz(p: Holder): string {
  const num = pad(p.number, 9);
  const line1 = pad(`I<${p.country}${num}${checkDigit(num)}`, 30);
  const birthPart = yymmdd(p.birth) + checkDigit(yymmdd(p.birth));
  const expiryPart = yymmdd(p.expiry) + checkDigit(yymmdd(p.expiry));
  const start = birthPart + (p.sex ?? 'F') + expiryPart + p.country + pad('', 11);
  const line2 = start + checkDigit(line1.slice(5) + birthPart + expiryPart + start.slice(18));
  const line3 = pad(`${p.lastName.toUpperCase()}<<${p.firstName.toUpperCase()}`, 30);
  return `${line1}\n${line2}\n${line3}`;
}

/** `zone` with one check digit changed (the `index`-th character of line `line`), as a forger would leave it. */
export function tamperedMrz(zone: string, line: number, index: number): string {
  const lines = zone.split('\n');
  const l = lines[line]!;
  lines[line] = l.slice(0, index) + String((Number(l[index]) + 1) % 10) + l.slice(index + 1);
  return lines.join('\n');
}

const year = new Date().getUTCFullYear();
/** An adult with a passport valid for years, and its zone. */
export const PERSON: Holder = { country: 'KAZ', lastName: 'IVANOVA', firstName: 'ANNA', number: 'N12345678', birth: '1990-01-01', expiry: `${year + 4}-06-30` };

/** PERSON's passport photo whose zone has one check digit wrong (the document number's), as a forger would leave it. */
export function tamperedDocument(): Promise<Buffer> {
  return idCard({ zone: { lines: tamperedMrz(passportMrz(PERSON), 1, 9) } });
}

/** A passport photo showing PERSON's data but another document number, valid in itself: it disagrees with documentForm(). */
export function mismatchedDocument(): Promise<Buffer> {
  return idCard({ holder: { ...PERSON, number: 'N99999999' } });
}

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

/**
 * Posts the page's multipart form as a browser does: unless given (null leaves one out), an
 * identity card with John Simm's photo and a selfie of him, which the check approves.
 */
export async function postDocuments(app: Express | string, sessionId: string, form: Record<string, string>, files: Record<string, Buffer | null> = {}) {
  let req = request(app).post(`/kyc/${sessionId}`);
  for (const [k, v] of Object.entries(form)) req = req.field(k, v);
  const all: Record<string, Buffer | null> = { document: await idCard(), selfie: await selfie(), ...files };
  for (const [k, v] of Object.entries(all)) if (v) req = req.attach(k, v, `${k}.bin`);
  return req;
}
