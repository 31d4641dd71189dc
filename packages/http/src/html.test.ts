import { escapeHtml, html, trustedHtml } from './html';

describe('html templates', () => {
  it('escapes every interpolated value, including attribute quotes and backticks', () => {
    const evil = `"><script>alert('x')</script>\``;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&#96;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&#96;</p>',
    );
  });

  it('nests templates without escaping them twice, joins arrays, and renders nothing for null, undefined and false', () => {
    const items = ['a&b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul>0');
  });

  it('passes trusted markup through as written', () => {
    expect(html`<div>${trustedHtml('<svg></svg>')}</div>`.value).toBe('<div><svg></svg></div>');
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });
});
