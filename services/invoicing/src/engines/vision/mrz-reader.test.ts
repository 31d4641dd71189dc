import { ShutdownAbort } from '@pay/runtime';
import { idCard, idCardMrz, passportMrz, PERSON, photo, tamperedMrz } from '../../../test/kyc/fixtures';
import { findZone, MrzReader } from './mrz-reader';

// One reader (one tesseract worker) for the file, started before the first test.
const reader = new MrzReader({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
/**
 * A reading is one or two OCR passes of ~0.5–1.5 s on an idle core, and each test makes its
 * pictures and reads up to three: ten times that on this 2-core machine loaded tenfold.
 */
const OCR_MS = 180_000;
beforeAll(() => reader.warm(), OCR_MS);
afterAll(() => reader.close());

describe('MRZ reader (OCR of the document photo)', () => {
  it('reads a passport’s TD3 zone and an identity card’s TD1 zone off generated photos', async () => {
    expect(await reader.read(await idCard())).toEqual({ lines: passportMrz(PERSON).split('\n'), valid: true });
    expect(await reader.read(await idCard({ zone: 'id_card' }))).toEqual({ lines: idCardMrz(PERSON).split('\n'), valid: true });
    // Another holder, another portrait beside the zone.
    const who = { country: 'KAZ', lastName: 'SEITOVA', firstName: 'AIGERIM', number: 'N07654321', birth: '1988-05-17', expiry: '2031-05-16', sex: 'F' as const };
    const other = await reader.read(await idCard({ holder: who, person: 'John_Salley', index: 5 }));
    expect(other?.valid).toBe(true);
    expect(other?.lines[0]).toBe(passportMrz(who).split('\n')[0]);
  }, OCR_MS);

  it('reads a tampered zone as it is: invalid, the same on two readings', async () => {
    const forged = tamperedMrz(passportMrz(PERSON), 1, 9);
    expect(await reader.read(await idCard({ zone: { lines: forged } }))).toEqual({ lines: forged.split('\n'), valid: false });
    const forgedCard = tamperedMrz(idCardMrz(PERSON), 1, 6);
    expect(await reader.read(await idCard({ zone: { lines: forgedCard } }))).toEqual({ lines: forgedCard.split('\n'), valid: false });
  }, OCR_MS);

  it('finds no zone on a document without one, on a blurred photo, or on a photo of anything else', async () => {
    expect(await reader.read(await idCard({ zone: null }))).toBeNull();
    expect(await reader.read(await idCard({ blur: 3 }))).toBeNull();
    expect(await reader.read(await photo({ seed: 11 }))).toBeNull();
    expect(await reader.read(Buffer.from('not a picture'))).toBeNull();
  }, OCR_MS);

  it('places lines read with specks beside them or fillers missing, and refuses text without a zone’s shape', () => {
    const [l1, l2] = passportMrz(PERSON).split('\n') as [string, string];
    // A speck before line 1 read as "9", two after line 2 as "I1"; a filler of line 1 lost.
    const read = findZone(`EE 2 S DTFKHI\n9${l1.replace('<<<<', '<<<')}\n${l2}I1\n`);
    expect(read).toEqual({ lines: [l1, l2], valid: true });
    // A misread document code is no zone, even of the right shape.
    expect(findZone(`X${l1.slice(1)}\n${l2}`)).toBeNull();
    expect(findZone('P<KAZIVANOVA\nN123\n')).toBeNull();
  });

  it('close aborts: the reading in flight and every later one reject at once, without waiting for the OCR', async () => {
    const own = new MrzReader({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
    // The picture first: making it is not what is timed.
    const [card, later] = await Promise.all([idCard(), idCard({ zone: 'id_card' })]);
    const inFlight = own.read(card);
    const started = Date.now();
    await own.close();
    await expect(inFlight).rejects.toBeInstanceOf(ShutdownAbort);
    expect(Date.now() - started).toBeLessThan(10_000); // a cold start and two readings take several seconds idle, far more under load
    await expect(own.read(later)).rejects.toBeInstanceOf(ShutdownAbort);
  }, OCR_MS);
});
