"""mkdocs hooks for litnn's docs (tools/build_docs.py): math becomes MathML when the site is built.

The markdown extension `pymdownx.arithmatex` finds `$...$` and `$$...$$` and leaves the TeX in
`<span class="arithmatex">\\(...\\)</span>` (or a `div` for display math). A script would typeset
it in the browser, fetched from the network; here `latex2mathml` turns it into MathML once, which
browsers draw themselves, so the pages need no network. TeX that latex2mathml cannot read stays
visible as TeX."""
import html, logging, re

log = logging.getLogger('mkdocs.hooks.litnn')
_INLINE = re.compile(r'<span class="arithmatex">\\\((.+?)\\\)</span>', re.S)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(.+?)\\\]</div>', re.S)


def _mathml(tex, display, page):
    from latex2mathml.converter import convert
    try: return convert(html.unescape(tex).strip(), display=display)
    except Exception as e:
        log.warning(f'{page.file.src_uri}: math left as TeX ({type(e).__name__}: {e}): {tex!r}')
        return None


def on_page_content(content, page, config, files):
    def block(m):
        ml = _mathml(m[1], 'block', page)
        return m[0] if ml is None else f'<div class="math-block">{ml}</div>'
    def inline(m):
        ml = _mathml(m[1], 'inline', page)
        return m[0] if ml is None else ml
    return _INLINE.sub(inline, _BLOCK.sub(block, content))
