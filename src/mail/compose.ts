// How a mail for people is written: a text and an HTML alternative of the same words, a
// button to a page of the web app for each link, and the API form of each link in a
// footnote for scripts. Names that someone other than the recipient chose (a person's or
// an organization's name, a notification's subject) are quoted only through plainName:
// plain, length-limited text that no mail program shows as a link (docs/decisions.md,
// "Consent before mail").
import { sql, type SQL } from 'drizzle-orm';

/** The longest a quoted name may be, in characters (then cut with "…"). */
export const NAME_MAX = 80;

// Control, format and bidirectional characters: they could hide or reorder what a name says.
// (Written for both JavaScript and PostgreSQL: the same class in each; text never holds U+0000.)
const INVISIBLE = '[\\u0001-\\u001f\\u007f-\\u009f\\u00ad\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff]';
// Every other space, made a plain one before spaces are collapsed.
const SPACES = '[\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]';
// Look-alikes of ".", ":", "/" and "@" that some mail programs read as their ASCII twins.
const LOOKALIKE_FROM = '\u3002\uff0e\uff61\uff1a\uff0f\uff20';
const LOOKALIKE_TO = '...:/@';
// "." before another character (not at the end, not before a space).
const LINKING_DOT = '\\.(?=[^ ])';
// "@" between two characters (an address; "@Grace", a mention, stays).
const LINKING_AT = '(?<=[^ ])@(?=[^ ])';

/**
 * A name as plain text: invisible characters and odd spaces become spaces, spaces are
 * collapsed, it is cut to `max` characters, and whatever could make it a link is broken:
 * "." before another character becomes "[.]", "://" becomes "[:]//", "@" inside a word "[at]"
 * ("WIN BIG at http://x.example" reads "WIN BIG at http[:]//x[.]example"). Its SQL twin is
 * plainNameSql.
 */
export function plainName(value: string, max = NAME_MAX): string {
  let text = value.replace(new RegExp(INVISIBLE, 'g'), ' ').replace(new RegExp(SPACES, 'g'), ' ')
    .replace(new RegExp(`[${LOOKALIKE_FROM}]`, 'g'), (c) => LOOKALIKE_TO[LOOKALIKE_FROM.indexOf(c)])
    .replace(/ +/g, ' ').replace(/^ | $/g, '');
  const chars = [...text];
  if (chars.length > max) text = `${chars.slice(0, max - 1).join('')}…`;
  return text.replace(/:\/\//g, '[:]//').replace(new RegExp(LINKING_DOT, 'g'), '[.]').replace(new RegExp(LINKING_AT, 'g'), '[at]');
}

/** Longer text (a notification's body) as plainName writes a name, line by line, cut to `max` characters. */
export function plainText(value: string, max: number): string {
  const text = value.split(/\r\n|\r|\n/).map((line) => plainName(line, Infinity)).join('\n').replace(/\n{3,}/g, '\n\n');
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/**
 * plainName as SQL over a text expression (for mail queued inside a statement), with the same
 * classes; test/modules/mail-consent.test.ts holds both to the same answers.
 */
export function plainNameSql(value: SQL, max = NAME_MAX): SQL {
  const cleaned = sql`btrim(regexp_replace(translate(regexp_replace(regexp_replace(${value}, ${INVISIBLE}::text, ' ', 'g'), ${SPACES}::text, ' ', 'g'),
    ${LOOKALIKE_FROM}::text, ${LOOKALIKE_TO}::text), ' +', ' ', 'g'), ' ')`;
  const cut = sql`(SELECT CASE WHEN char_length(c) > ${max}::int THEN left(c, ${max - 1}::int) || '…' ELSE c END FROM (SELECT ${cleaned} AS c) AS n)`;
  return sql`regexp_replace(regexp_replace(replace(${cut}, '://', '[:]//'), ${LINKING_DOT}::text, '[.]', 'g'), ${LINKING_AT}::text, '[at]', 'g')`;
}

/** One mail for a person. Every string is the service's own words or already passed through plainName. */
export interface MailContent {
  /** The greeting's name ("" for none). */
  hello?: string;
  /** Paragraphs before the button. */
  intro: string[];
  /** The button: a page of the web app. */
  action?: { label: string; url: string };
  /** Paragraphs after the button. */
  outro?: string[];
  /** The footnote for scripts: the API form of the link (lines). */
  api?: string[];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The text and HTML alternatives of a mail. */
export function renderMail(content: MailContent): { text: string; html: string } {
  const hello = content.hello === undefined ? null : `Hello${content.hello ? ` ${content.hello}` : ''},`;
  const text: string[] = [];
  if (hello) text.push(hello, '');
  for (const p of content.intro) text.push(p, '');
  if (content.action) text.push(`${content.action.label}:`, content.action.url, '');
  for (const p of content.outro ?? []) text.push(p, '');
  if (content.api?.length) text.push('--', 'For scripts (the API):', ...content.api.map((l) => `  ${l}`), '');

  const para = (p: string) => `<p style="margin:0 0 16px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`;
  const html = [
    '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:16px;line-height:1.5;color:#1a1a1a;max-width:560px;margin:0 auto;padding:24px">',
    hello ? para(hello) : '',
    ...content.intro.map(para),
    content.action
      ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(content.action.label)}</a></p>`
        + `<p style="margin:0 0 16px;font-size:13px;color:#555">Or open this address: ${escapeHtml(content.action.url)}</p>`
      : '',
    ...(content.outro ?? []).map(para),
    content.api?.length
      ? `<hr style="border:none;border-top:1px solid #ddd;margin:24px 0 12px"><p style="margin:0;font-size:12px;color:#666">For scripts (the API):<br>${content.api.map((l) => `<code>${escapeHtml(l)}</code>`).join('<br>')}</p>`
      : '',
    '</body></html>',
  ].join('\n');
  return { text: text.join('\n'), html };
}
