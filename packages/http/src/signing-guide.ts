import { SIGNATURE_WINDOW_MS, SIGNING_STYLES, type SigningStyle } from '@pay/auth';

/**
 * How a service's signed operations are signed, for its OpenAPI document: the exact rule (the
 * `signature` security scheme's description) and a sample in each language merchants write
 * (the document's description, shown on /docs). Both come from the style's one definition
 * (@pay/auth SIGNING_STYLES), so the words cannot say seconds where the server checks
 * milliseconds. documents.test.ts runs each sample's signer against the vectors of
 * packages/auth's tests.
 */

export interface SignedExample {
  method: string;
  /** Path without query string, as signed. */
  path: string;
  /** The raw JSON body, exactly as sent. */
  body: string;
}

/** One language's sample: `signer` defines `sign(secret, method, path, body, timestamp?)`; `usage` sends the example with it. */
export interface SigningSample {
  language: 'curl' | 'TypeScript' | 'Python' | 'PHP' | 'Go';
  /** The code-block language tag. */
  tag: string;
  signer: string;
  usage: string;
}

export function signingRule(style: SigningStyle): string {
  const s = SIGNING_STYLES[style];
  const unit = s.timestampUnit === 'seconds' ? 'Unix time in **seconds**' : 'Unix time in **milliseconds**';
  const encoding = s.signatureEncoding === 'base64' ? 'standard padded **Base64**' : 'lower-case **hex**';
  return (
    `Signed operations send three headers: \`X-Api-Key\` (the API key), \`${s.timestampHeader}\` = ${unit} as an integer, and ` +
    `\`${s.signatureHeader}\` = ${encoding} of HMAC-SHA256, keyed with the merchant's HMAC secret (its UTF-8 bytes), over the bytes of ` +
    '`{timestamp}.{METHOD}.{path}{rawBody}`: the timestamp exactly as sent in its header, the method in upper case, the path without ' +
    'query string, then the body exactly as sent (nothing when there is none). ' +
    `The timestamp may differ from the server's clock by ${SIGNATURE_WINDOW_MS / 1000} s either way; a signature is accepted once ` +
    '(sign every request and every retry anew). A wrong signature is 401 INVALID_SIGNATURE, a timestamp out of the window 401 ' +
    'TIMESTAMP_OUT_OF_WINDOW, a signature used before 401 REPLAYED_REQUEST.'
  );
}

export function signingSamples(style: SigningStyle, ex: SignedExample): SigningSample[] {
  const s = SIGNING_STYLES[style];
  const ms = s.timestampUnit === 'milliseconds';
  const b64 = s.signatureEncoding === 'base64';
  const ts = s.timestampHeader;
  const sig = s.signatureHeader;
  const q = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  return [
    {
      language: 'curl',
      tag: 'bash',
      signer:
        `TS=\${TS:-$(date +${ms ? '%s%3N' : '%s'})}\n` +
        `BODY=${q(ex.body)}\n` +
        `SIG=$(printf '%s' "$TS.${ex.method}.${ex.path}$BODY" | openssl dgst -sha256 -hmac "$HMAC_SECRET" ${b64 ? '-binary | base64' : "-hex | sed 's/^.* //'"})`,
      usage:
        `curl -s "$BASE_URL${ex.path}" -X ${ex.method} -H "X-Api-Key: $API_KEY" -H "${ts}: $TS" -H "${sig}: $SIG" \\\n` +
        `  -H 'Content-Type: application/json' -d "$BODY"`,
    },
    {
      language: 'TypeScript',
      tag: 'ts',
      signer:
        "import { createHmac } from 'node:crypto';\n\n" +
        `export function sign(secret: string, method: string, path: string, body = '', timestamp = String(${ms ? 'Date.now()' : 'Math.floor(Date.now() / 1000)'})) {\n` +
        `  const signature = createHmac('sha256', secret).update(\`\${timestamp}.\${method}.\${path}\${body}\`).digest('${b64 ? 'base64' : 'hex'}');\n` +
        `  return { '${ts}': timestamp, '${sig}': signature };\n` +
        '}',
      usage:
        `const body = JSON.stringify(${ex.body});\n` +
        `const res = await fetch(\`\${process.env.BASE_URL}${ex.path}\`, {\n` +
        `  method: '${ex.method}',\n` +
        `  headers: { 'X-Api-Key': process.env.API_KEY!, 'Content-Type': 'application/json', ...sign(process.env.HMAC_SECRET!, '${ex.method}', '${ex.path}', body) },\n` +
        '  body,\n' +
        '});\n' +
        'console.log(res.status, await res.json());',
    },
    {
      language: 'Python',
      tag: 'python',
      signer:
        `import ${b64 ? 'base64, ' : ''}hashlib, hmac, time\n\n` +
        'def sign(secret, method, path, body=b"", timestamp=None):\n' +
        `    timestamp = timestamp or str(int(time.time()${ms ? ' * 1000' : ''}))\n` +
        '    mac = hmac.new(secret.encode(), f"{timestamp}.{method}.{path}".encode() + body, hashlib.sha256)\n' +
        `    return {"${ts}": timestamp, "${sig}": ${b64 ? 'base64.b64encode(mac.digest()).decode()' : 'mac.hexdigest()'}}`,
      usage:
        'import json, os, urllib.request\n\n' +
        `body = ${JSON.stringify(ex.body)}.encode()\n` +
        `headers = {"X-Api-Key": os.environ["API_KEY"], "Content-Type": "application/json", **sign(os.environ["HMAC_SECRET"], "${ex.method}", "${ex.path}", body)}\n` +
        `req = urllib.request.Request(os.environ["BASE_URL"] + "${ex.path}", data=body, method="${ex.method}", headers=headers)\n` +
        'print(json.load(urllib.request.urlopen(req)))',
    },
    {
      language: 'PHP',
      tag: 'php',
      signer:
        '<?php\n' +
        'function sign(string $secret, string $method, string $path, string $body = \'\', ?string $timestamp = null): array {\n' +
        `    $timestamp ??= ${ms ? '(string) (int) floor(microtime(true) * 1000)' : '(string) time()'};\n` +
        `    $mac = hash_hmac('sha256', $timestamp . '.' . $method . '.' . $path . $body, $secret${b64 ? ', true' : ''});\n` +
        `    return ['${ts}' => $timestamp, '${sig}' => ${b64 ? 'base64_encode($mac)' : '$mac'}];\n` +
        '}',
      usage:
        `$body = ${q(ex.body)};\n` +
        `$headers = ['X-Api-Key: ' . getenv('API_KEY'), 'Content-Type: application/json'];\n` +
        `foreach (sign(getenv('HMAC_SECRET'), '${ex.method}', '${ex.path}', $body) as $name => $value) $headers[] = "$name: $value";\n` +
        `$context = stream_context_create(['http' => ['method' => '${ex.method}', 'header' => $headers, 'content' => $body, 'ignore_errors' => true]]);\n` +
        `echo file_get_contents(getenv('BASE_URL') . '${ex.path}', false, $context);`,
    },
    {
      language: 'Go',
      tag: 'go',
      signer:
        'package main\n\n' +
        'import (\n' +
        '\t"crypto/hmac"\n' +
        '\t"crypto/sha256"\n' +
        `\t"encoding/${b64 ? 'base64' : 'hex'}"\n` +
        '\t"strconv"\n' +
        '\t"time"\n' +
        ')\n\n' +
        '// sign returns the timestamp and signature headers; timestamp "" means now.\n' +
        'func sign(secret, method, path string, body []byte, timestamp string) map[string]string {\n' +
        '\tif timestamp == "" {\n' +
        `\t\ttimestamp = strconv.FormatInt(time.Now().${ms ? 'UnixMilli' : 'Unix'}(), 10)\n` +
        '\t}\n' +
        '\tmac := hmac.New(sha256.New, []byte(secret))\n' +
        '\tmac.Write([]byte(timestamp + "." + method + "." + path))\n' +
        '\tmac.Write(body)\n' +
        `\treturn map[string]string{"${ts}": timestamp, "${sig}": ${b64 ? 'base64.StdEncoding.EncodeToString' : 'hex.EncodeToString'}(mac.Sum(nil))}\n` +
        '}',
      usage:
        '// main.go, beside the file above\n' +
        'package main\n\n' +
        'import (\n\t"bytes"\n\t"fmt"\n\t"io"\n\t"net/http"\n\t"os"\n)\n\n' +
        'func main() {\n' +
        `\tbody := []byte(${JSON.stringify(ex.body)})\n` +
        `\treq, _ := http.NewRequest("${ex.method}", os.Getenv("BASE_URL")+"${ex.path}", bytes.NewReader(body))\n` +
        '\treq.Header.Set("X-Api-Key", os.Getenv("API_KEY"))\n' +
        '\treq.Header.Set("Content-Type", "application/json")\n' +
        `\tfor name, value := range sign(os.Getenv("HMAC_SECRET"), "${ex.method}", "${ex.path}", body, "") {\n` +
        '\t\treq.Header.Set(name, value)\n' +
        '\t}\n' +
        '\tres, err := http.DefaultClient.Do(req)\n' +
        '\tif err != nil {\n\t\tpanic(err)\n\t}\n' +
        '\tout, _ := io.ReadAll(res.Body)\n' +
        '\tfmt.Println(res.StatusCode, string(out))\n' +
        '}',
    },
  ];
}

/** The samples as the document's description shows them (Markdown, rendered on /docs). */
export function signingGuide(style: SigningStyle, ex: SignedExample): string {
  return [
    '## Signing requests',
    '',
    signingRule(style),
    '',
    `Each sample signs \`${ex.method} ${ex.path}\` with the body \`${ex.body}\` and sends it; \`API_KEY\`, \`HMAC_SECRET\` and \`BASE_URL\` come from the environment.`,
    ...signingSamples(style, ex).flatMap((s) => ['', `### ${s.language}`, '', `\`\`\`${s.tag}`, s.signer, '', s.usage, '```']),
  ].join('\n');
}
