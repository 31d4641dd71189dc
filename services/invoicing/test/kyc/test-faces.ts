// Real face photos for the KYC tests: dlib's example faces (public-domain dedication), five
// people with 11 aligned 150×150 crops each, which Debian's libdlib19.1 ships as
// documentation. scripts/bootstrap.sh unpacks them (the package is not installed) here:
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const TEST_FACES_DIR = process.env.KYC_TEST_FACES_DIR ?? '/var/cache/pay-test-data/dlib-faces';

export const FACE_PEOPLE = ['John_Salley', 'John_Savage', 'John_Schneider', 'John_Shimkus', 'John_Simm'] as const;
export type FacePerson = (typeof FACE_PEOPLE)[number];

const files = new Map<FacePerson, string[]>();

/** The `index`-th photo (sorted by file name, 0..10) of a person, as JPEG bytes. */
export function facePhoto(person: FacePerson, index: number): Buffer {
  let list = files.get(person);
  if (!list) {
    const dir = join(TEST_FACES_DIR, person);
    list = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jpg')).sort() : [];
    if (list.length === 0) {
      throw new Error(
        `No test face photos in ${dir}: run scripts/bootstrap.sh (its "test faces" step unpacks Debian's libdlib19.1 examples there), or set KYC_TEST_FACES_DIR`,
      );
    }
    files.set(person, list);
  }
  const file = list[index % list.length]!;
  return readFileSync(join(TEST_FACES_DIR, person, file));
}
