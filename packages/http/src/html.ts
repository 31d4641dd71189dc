/**
 * Server-rendered HTML that is safe by construction: every value interpolated into an
 * `html\`…\`` template is escaped unless it is itself `SafeHtml` (another template, or
 * `trustedHtml` for markup the service wrote). Merchant-supplied strings (descriptions,
 * names, URLs) can therefore never inject markup into hosted pages or the console.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${description}</p>\`` escapes `description`. Arrays are concatenated; null, undefined and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Markup the service itself produced (never user input), e.g. an inline SVG read from disk. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
