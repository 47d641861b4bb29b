// Prompts and replies as Markdown, safely: marked's lexer (a well-kept parser, vendored and
// loaded when a transcript is first shown) reads the text into tokens, and the DOM is built from
// them here with h(), never from HTML. So raw HTML shows as text, a link shows its text and its
// address but is not a link (nothing is ever fetched or opened from it), and an image shows as
// its description and address.
import { h, vendorScript } from './dom.js';

let lexer = null;

/** Loads the Markdown parser (once); until it is in, or if it cannot load, text stays plain. */
export async function markdownReady() {
  const marked = await vendorScript('marked.umd.js', 'marked');
  lexer = marked ? marked.Lexer : null;
}

/** The text as Markdown, in a div of class md. */
export function markdown(text) {
  let tokens;
  try {
    if (!lexer) throw new Error('no Markdown parser');
    tokens = lexer.lex(text, { gfm: true, breaks: true });
  } catch {
    return h('div.md', null, h('p', null, text)); // the lexer gave up: the text as it is
  }
  return h('div.md', null, blocks(tokens));
}

function blocks(tokens) {
  return (tokens || []).map(block);
}

function block(token) {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox': // a task item's box: the list item draws it
      return null;
    case 'code':
      return h('pre.md-code', { dataset: token.lang ? { lang: token.lang } : undefined }, h('code', null, token.text));
    case 'heading':
      return h(`h${Math.min(6, token.depth + 2)}.md-heading`, null, inline(token.tokens));
    case 'paragraph':
      return h('p', null, inline(token.tokens));
    case 'blockquote':
      return h('blockquote', null, blocks(token.tokens));
    case 'list': {
      const items = token.items.map((item) =>
        h('li', null, item.task ? h('input', { type: 'checkbox', checked: Boolean(item.checked), disabled: true, attrs: { 'aria-label': item.checked ? 'done' : 'to do' } }) : null, item.loose ? blocks(item.tokens) : listItem(item.tokens)),
      );
      return token.ordered ? h('ol', { start: token.start === '' ? undefined : Number(token.start) || 1 }, items) : h('ul', null, items);
    }
    case 'table':
      return h(
        'div.md-table',
        null,
        h('table', null, h('thead', null, h('tr', null, token.header.map((cell) => h('th', null, inline(cell.tokens))))), h('tbody', null, token.rows.map((row) => h('tr', null, row.map((cell) => h('td', null, inline(cell.tokens))))))),
      );
    case 'hr':
      return h('hr');
    case 'html':
      return h('pre.md-html', null, token.raw);
    case 'text':
      return h('p', null, token.tokens ? inline(token.tokens) : token.text);
    default:
      return h('p', null, token.raw || '');
  }
}

/** A tight list item's tokens: its text inline, nested lists as blocks. */
function listItem(tokens) {
  return (tokens || []).map((token) => (token.type === 'text' ? (token.tokens ? inline(token.tokens) : token.text) : token.type === 'checkbox' ? null : block(token)));
}

function inline(tokens) {
  return (tokens || []).map((token) => {
    switch (token.type) {
      case 'strong':
        return h('strong', null, inline(token.tokens));
      case 'em':
        return h('em', null, inline(token.tokens));
      case 'del':
        return h('del', null, inline(token.tokens));
      case 'codespan':
        return h('code', null, token.text);
      case 'br':
        return h('br');
      case 'link':
        // Shown, never followed: the address is text beside the link's words.
        return h('span.md-link', { title: token.href }, inline(token.tokens), token.text === token.href ? null : h('span.md-url', null, ` <${token.href}>`));
      case 'image':
        return h('span.md-image', { title: token.href }, `[image: ${token.text || 'no description'}] <${token.href}>`);
      case 'html':
        return token.text;
      case 'escape':
        return token.text;
      case 'text':
        return token.tokens ? inline(token.tokens) : token.escaped ? unescape(token.text) : token.text;
      default:
        return token.raw || '';
    }
  });
}

// A text token marked has escaped (`escaped`) carries HTML entities: shown as the characters.
const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (text) => text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);
