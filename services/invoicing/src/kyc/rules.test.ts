import { parse } from 'mrz';
import { checkDigit, passportMrz, photo } from './fixtures';
import { hashDistance, readImage } from './images';
import type { KycSubmission } from './provider';
import { ageOn, RuleBasedKycProvider } from './rules';

const NOW = new Date('2026-03-01T10:00:00Z');
const provider = new RuleBasedKycProvider();
const anna = { country: 'KAZ', lastName: 'IVANOVA', firstName: 'ANNA', number: 'N12345678', birth: '1990-01-01', expiry: '2030-01-01' };

async function submission(over: Partial<KycSubmission['document']> = {}, files: Partial<KycSubmission['files']> = {}, level: 'basic' | 'advanced' = 'basic'): Promise<KycSubmission> {
  return {
    level,
    document: {
      type: 'passport',
      number: anna.number,
      country: anna.country,
      firstName: 'Anna',
      lastName: 'Ivanova',
      middleName: null,
      dateOfBirth: anna.birth,
      issuedAt: '2020-01-01',
      expiresAt: anna.expiry,
      mrz: passportMrz(anna),
      ...over,
    },
    files: {
      document: { type: 'image/png', bytes: await photo() },
      selfie: { type: 'image/jpeg', bytes: await photo({ format: 'jpeg' }) },
      ...files,
    },
  };
}

const failed = (v: Awaited<ReturnType<RuleBasedKycProvider['verify']>>) => v.checks.filter((c) => !c.passed).map((c) => c.name);

describe('rule-based KYC provider', () => {
  it('fixtures make zones the mrz library accepts', () => {
    expect(checkDigit('L898902C3')).toBe('6'); // ICAO 9303 specimen
    expect(parse(passportMrz(anna).split('\n')).valid).toBe(true);
  });

  it('approves a valid adult document with a matching MRZ and two sharp, different pictures', async () => {
    const v = await provider.verify(await submission(), NOW);
    expect(failed(v)).toEqual([]);
    expect(v.outcome).toBe('approve');
    expect(v.reason).toBeNull();
    expect(v.livenessScore).toBe(1);
    expect(v.faceMatchScore).toBeGreaterThanOrEqual(0.8);
    expect(v.checks.map((c) => c.name)).toEqual(['document_expiry', 'document_issue_date', 'age', 'mrz', 'document_image', 'selfie_image']);
  });

  it('declines an expired document, a minor, a wrong check digit and an MRZ of someone else', async () => {
    const expired = await provider.verify(await submission({ expiresAt: '2026-02-28', mrz: passportMrz({ ...anna, expiry: '2026-02-28' }) }), NOW);
    expect(expired.outcome).toBe('decline');
    expect(failed(expired)).toEqual(['document_expiry']);
    const birth = '2008-03-02'; // 18 tomorrow
    const minor = await provider.verify(await submission({ dateOfBirth: birth, mrz: passportMrz({ ...anna, birth }) }), NOW);
    expect(minor.outcome).toBe('decline');
    expect(minor.reason).toContain('under 18');
    expect(ageOn('2008-03-01', '2026-03-01')).toBe(18);
    const zone = passportMrz(anna);
    const broken = zone.slice(0, 45 + 9) + String((Number(zone[45 + 9]) + 1) % 10) + zone.slice(45 + 10);
    const digit = await provider.verify(await submission({ mrz: broken }), NOW);
    expect(digit.outcome).toBe('decline');
    expect(digit.reason).toMatch(/check digit/i);
    const other = await provider.verify(await submission({ mrz: passportMrz({ ...anna, number: 'N99999999' }) }), NOW);
    expect(other.outcome).toBe('decline');
    expect(other.reason).toContain('document number');
  });

  it('declines the same picture twice (even re-encoded), an undecodable file and a tiny picture', async () => {
    const pic = await photo();
    const same = await provider.verify(await submission({}, { document: { type: 'image/png', bytes: pic }, selfie: { type: 'image/png', bytes: pic } }), NOW);
    expect(same.outcome).toBe('decline');
    expect(failed(same)).toContain('distinct_images');
    expect(same.faceMatchScore).toBe(0);
    const sharp = (await import('sharp')).default;
    const reencoded = await sharp(pic).resize(600).jpeg({ quality: 70 }).toBuffer();
    const a = await readImage(pic);
    const b = await readImage(reencoded);
    expect(a.ok && b.ok && hashDistance(a.facts.dhash, b.facts.dhash)).toBeLessThanOrEqual(10);
    const png = await photo();
    const truncated = png.subarray(0, 200);
    const broken = await provider.verify(await submission({}, { selfie: { type: 'image/png', bytes: truncated } }), NOW);
    expect(broken.outcome).toBe('decline');
    expect(failed(broken)).toContain('selfie_image');
    const tiny = await provider.verify(await submission({}, { selfie: { type: 'image/png', bytes: await photo({ width: 200, height: 200 }) } }), NOW);
    expect(tiny.outcome).toBe('decline');
    expect(tiny.reason).toContain('200×200');
  });

  it('sends borderline cases to a person: no MRZ, slightly soft pictures, and every advanced level', async () => {
    const noMrz = await provider.verify(await submission({ mrz: null }), NOW);
    expect(noMrz.outcome).toBe('review');
    const soft = await provider.verify(await submission({}, { selfie: { type: 'image/png', bytes: await photo({ grain: 1, seed: 1 }) } }), NOW);
    expect(soft.livenessScore).toBeGreaterThanOrEqual(0.4);
    expect(soft.livenessScore).toBeLessThan(0.8);
    expect(soft.outcome).toBe('review');
    const blurred = await provider.verify(await submission({}, { selfie: { type: 'image/png', bytes: await photo({ blur: 8 }) } }), NOW);
    expect(blurred.outcome).toBe('decline');
    const dark = await provider.verify(await submission({}, { selfie: { type: 'image/png', bytes: await photo({ dark: true }) } }), NOW);
    expect(dark.livenessScore).toBeLessThan(0.8);
    const advanced = await provider.verify(await submission({}, { addressProof: { type: 'application/pdf', bytes: Buffer.from('%PDF-1.4\n') } }, 'advanced'), NOW);
    expect(advanced.outcome).toBe('review');
    expect(advanced.reason).toContain('proof of address');
  });
});
