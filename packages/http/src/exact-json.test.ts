import fc from 'fast-check';
import { money, toJsonNumber, JsonDecimal } from '@pay/money';
import { exactBodyMember, jsonMemberText, RawJson, stringifyExact } from './exact-json';

describe('stringifyExact', () => {
  it('writes decimals digit for digit, beyond what a double holds', () => {
    const body = { a: new JsonDecimal('8910000000.296992'), b: [new JsonDecimal('-0.000001')], c: 'text', d: 1.5 };
    expect(stringifyExact(body)).toBe('{"a":8910000000.296992,"b":[-0.000001],"c":"text","d":1.5}');
    expect(JSON.stringify({ a: Number('8910000000.296992') })).toBe('{"a":8910000000.296991}'); // why this exists
  });

  it('writes Money as the digits it holds (toJsonNumber)', () => {
    expect(stringifyExact({ a: toJsonNumber(money('0.1').add('0.2')) })).toBe('{"a":0.3}');
    expect(stringifyExact({ a: toJsonNumber('1234.50') })).toBe('{"a":1234.5}');
  });

  it('writes the same text with or without amounts a double prints back as they are', () => {
    // Plain JSON.stringify serves documents whose amounts all print back as written; the
    // marking path, the rest. Both must agree wherever either could be taken.
    const at = new Date('2026-11-28T10:00:00.123Z');
    expect(stringifyExact({ a: new JsonDecimal('1500.5'), b: [new JsonDecimal('0.01')], at, n: null })).toBe('{"a":1500.5,"b":[0.01],"at":"2026-11-28T10:00:00.123Z","n":null}');
    expect(stringifyExact({ a: new JsonDecimal('1500.5'), deep: [{ x: new JsonDecimal('12345678901234567890') }] })).toBe('{"a":1500.5,"deep":[{"x":12345678901234567890}]}');
    expect(stringifyExact({ z: new JsonDecimal('-0') })).toBe('{"z":-0}');
    expect(stringifyExact({ big: new JsonDecimal('1000000000000000000000') })).toBe('{"big":1000000000000000000000}');
    // Another class's toJSON may give anything, decimals included: the careful path walks what it gives.
    const wrapped = { toJSON: () => ({ v: new JsonDecimal('8910000000.296992') }) };
    expect(stringifyExact({ w: wrapped })).toBe('{"w":{"v":8910000000.296992}}');
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 8 }), (units, scale) => {
        const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
        const text = `${units < 0n ? '-' : ''}${scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits}`;
        const d = new JsonDecimal(text);
        expect(stringifyExact({ d, list: [d] })).toBe(`{"d":${text},"list":[${text}]}`);
      }),
    );
  });

  it('leaves strings that look like the marker alone', () => {
    expect(stringifyExact({ s: '@@decimal:00:1.5' })).toBe('{"s":"@@decimal:00:1.5"}');
    expect(stringifyExact({ s: '@@exact:00:0', r: new RawJson('1') })).toBe('{"s":"@@exact:00:0","r":1}');
  });

  it('refuses anything but a plain decimal', () => {
    expect(() => new JsonDecimal('1e5')).toThrow();
    expect(() => new JsonDecimal('NaN')).toThrow();
  });

  it('embeds raw JSON as its own text: digits, 2.50, key order, escapes, spacing; beside decimals, at any depth', () => {
    const meta = '{"z": 12345678901234567890, "a":2.50, "s":"\\u00fc \\"q\\" }", "n":[1.0,{"x":null}]}';
    const text = stringifyExact({ id: 'i', amount: new JsonDecimal('10.25'), metadata: new RawJson(meta), list: [new RawJson('"x"'), new RawJson('0.10')] });
    expect(text).toBe(`{"id":"i","amount":10.25,"metadata":${meta},"list":["x",0.10]}`);
    expect(JSON.parse(text).metadata).toEqual({ z: 12345678901234567000, a: 2.5, s: 'ü "q" }', n: [1, { x: null }] });
    expect(stringifyExact(new RawJson('[1.50]'))).toBe('[1.50]');
    // Without stringifyExact it is still the value, as JSON.parse reads it.
    expect(JSON.stringify({ m: new RawJson('{"a": 2.50}') })).toBe('{"m":{"a":2.5}}');
  });

  it('refuses raw text that is not exactly one JSON value, so it can never break the document around it', () => {
    for (const bad of ['', '{', '1}, "admin": true, "x": {', '{"a":1} {"b":2}', 'NaN', "{'a':1}"]) expect(() => new RawJson(bad)).toThrow();
  });
});

describe('jsonMemberText', () => {
  it('finds a top-level member as written, whatever the spacing and nesting', () => {
    expect(jsonMemberText('{"amount":10,"metadata":{"a":12345678901234567890,"b":2.50}}', 'metadata')).toBe('{"a":12345678901234567890,"b":2.50}');
    expect(jsonMemberText(' \r\n{ "metadata" :\t{ "a" : [ 1 , { "b" : {} } ] }\n , "x":1 }\n', 'metadata')).toBe('{ "a" : [ 1 , { "b" : {} } ] }');
    expect(jsonMemberText('{"a":{"metadata":1},"metadata":[{"metadata":2}]}', 'metadata')).toBe('[{"metadata":2}]');
    expect(jsonMemberText('{"a":1,"b":-2.5e+3}', 'b')).toBe('-2.5e+3');
    expect(jsonMemberText('{"a":true}', 'a')).toBe('true');
    expect(jsonMemberText('{"a":null }', 'a')).toBe('null');
  });

  it('skips strings holding quotes, backslashes, braces and brackets, in keys and values', () => {
    const text = '{"q":"a \\"}{][ \\\\","k\\"}":{"s":"}}]]\\\\\\""},"metadata":{"v":"{\\"x\\":1}","w":"\\\\"}}';
    expect(JSON.parse(text)).toHaveProperty('metadata');
    expect(jsonMemberText(text, 'metadata')).toBe('{"v":"{\\"x\\":1}","w":"\\\\"}');
    expect(JSON.parse(jsonMemberText(text, 'k"}')!)).toEqual({ s: '}}]]\\"' });
  });

  it('takes the last of duplicate keys, as JSON.parse does, and reads escapes in keys', () => {
    const dup = '{"metadata":{"first":1},"metadata":{"last":2}}';
    expect(jsonMemberText(dup, 'metadata')).toBe('{"last":2}');
    expect(JSON.parse(dup).metadata).toEqual({ last: 2 });
    expect(jsonMemberText('{"meta\\u0064ata":{"a":1},"metadatax":2}', 'metadata')).toBe('{"a":1}');
  });

  it('keeps unicode as written', () => {
    expect(jsonMemberText('{"m":{"k":"ключ 😀","e":"\\ud83d\\ude00"}}', 'm')).toBe('{"k":"ключ 😀","e":"\\ud83d\\ude00"}');
  });

  it('is undefined without the member or without an object', () => {
    expect(jsonMemberText('{}', 'metadata')).toBeUndefined();
    expect(jsonMemberText('{"a":{"metadata":1}}', 'metadata')).toBeUndefined();
    expect(jsonMemberText('[{"metadata":1}]', 'metadata')).toBeUndefined();
    expect(jsonMemberText('"metadata"', 'metadata')).toBeUndefined();
  });

  it('finds what JSON.parse finds, on random JSON', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), fc.jsonValue(), (obj, key, value) => {
        const text = JSON.stringify({ ...obj, [key]: value }, null, 1);
        const found = jsonMemberText(text, key);
        expect(JSON.parse(found!)).toEqual(JSON.parse(text)[key]);
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});

describe('exactBodyMember', () => {
  const req = (raw: string | Buffer) => ({ rawBody: Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8'), body: JSON.parse(Buffer.from(raw).toString('utf8').replace(/^\uFEFF/, '')) });

  it('gives the member as sent, checked against the parsed body', () => {
    const raw = '{"amount":1,"metadata":{"big":12345678901234567890,"p":2.50}}';
    expect(exactBodyMember(req(raw), 'metadata')!.text).toBe('{"big":12345678901234567890,"p":2.50}');
    expect(exactBodyMember(req('{"amount":1}'), 'metadata')).toBeUndefined();
    expect(exactBodyMember(req(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"metadata":{"a":1.0}}')])), 'metadata')!.text).toBe('{"a":1.0}');
  });

  it('refuses a body that is not valid UTF-8; fails loudly if the text does not read as what was validated', () => {
    const bad = Buffer.concat([Buffer.from('{"metadata":{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
    expect(() => exactBodyMember({ rawBody: bad, body: { metadata: { a: '\ufffd\ufffd' } } }, 'metadata')).toThrow('Request body must be valid UTF-8');
    expect(() => exactBodyMember({ rawBody: Buffer.from('{"metadata":{"a":1}}'), body: { metadata: { a: 2 } } }, 'metadata')).toThrow(/not found in the request body/);
    expect(() => exactBodyMember({ rawBody: Buffer.alloc(0), body: { metadata: {} } }, 'metadata')).toThrow(/not found in the request body/);
  });
});
