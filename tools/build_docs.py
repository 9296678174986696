"""Build litnn's documentation site from the notebooks, offline:

    python tools/build_docs.py             # -> _site/index.html (open it in a browser; no server needed)
    python tools/build_docs.py --out DIR   # somewhere else

nbdev renders its docs with Quarto, which cannot be installed on our machines (its PyPI package downloads
the binary at install time, and no other registry carries it); `nbdev_docs` still works wherever Quarto is
(`_quarto.yml` is kept for it).
This script does nbdev's part itself and hands the rendering to mkdocs-material:

1. nbdev's own processing of every notebook in nbs/ (what `nbdev_proc_nbs` runs before Quarto):
   it runs the import, export and `show_doc` cells, so every exported symbol gets its API entry
   (signature with its parameters, docstring, link to the source); drops `#| hide` cells and
   exported code; adds front matter and links from `name` in backticks to its docs.
2. Each processed notebook becomes one markdown page (`nb_page`): prose as written, code in
   fences, the saved outputs (text, `show_doc` markdown, HTML, images as files), nbdev's doc links
   pointed at the pages of this site.
3. `mkdocs build --strict` with the Material theme (tools/docs/mkdocs.yml): navigation across all
   parts in reading order, a table of contents per page, client-side search that works from `file://` (the
   `offline` plugin), no fonts or scripts from the network, and math turned into MathML at build
   time (tools/docs/hooks.py), which browsers draw without a script.

The navigation is the book's one table, nbs/book.yml (read by tools/book.py): the home page and the overview, each
part of the book with its chapters, then each shelf of the reference. A new notebook needs its row there.
"""
import argparse, base64, html, json, os, re, shutil, sys, time, warnings
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS, DOCS_CFG = ROOT/'nbs', ROOT/'tools'/'docs'
sys.path.insert(0, str(ROOT/'tools'))


from book import order, part_of                  # noqa: E402  (tools/book.py: the book's one table, nbs/book.yml)


def notebooks(nbs=NBS):
    "The notebooks nbdev sees, in reading order (nbs/book.yml): the home page, the overview, the book, the reference shelf."
    found = {p.relative_to(nbs).with_suffix('').as_posix(): p for p in nbs.rglob('*.ipynb')
             if not any(part.startswith(('_', '.')) for part in p.relative_to(nbs).parts)}
    rank = {nb: i for i, nb in enumerate(order())}
    missing = sorted(set(found) - set(rank))
    if missing: raise SystemExit(f'docs: not in nbs/book.yml (add each to its part or shelf): {", ".join(missing)}')
    return [found[nb] for nb in sorted(found, key=rank.__getitem__)]


def section_of(nb):
    "The navigation group of notebook `nb` (its path under nbs/, no suffix): its part or shelf; None for the home page and overview."
    return part_of(nb)


# --- 1. nbdev's processing ------------------------------------------------------------------------

def _imports_only(cell):
    "For a cell that mixes imports with other code: just its top-level import statements, else None."
    import ast
    if cell.cell_type != 'code' or 'nbdev_export()' in cell.source or cell.directives_.keys() & {'export', 'exports', 'exporti', 'exec_doc', 'eval:'}: return None
    try: tree = ast.parse(cell.source)
    except SyntaxError: return None
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    if not imports or len(imports) == len(tree.body): return None
    return '\n'.join(ast.get_source_segment(cell.source, n) for n in imports)


def _process(src_dst):
    "Run nbdev's docs processors on one notebook (in a process of its own: its export cells patch litnn)."
    src, dst = src_dst
    os.chdir(ROOT)                            # nbdev finds settings.ini from the working directory
    os.environ['IN_TEST'] = '1'               # as nbdev's own docs step sets it
    warnings.simplefilter('ignore')           # nbdev's "cells containing imports and other code" notes
    from nbdev.serve_drv import exec_nb
    from nbdev.processors import FilterDefaults, exec_show_docs, mv_exports
    mixed, run_cell = [], exec_show_docs.__call__
    def call(self, cell):
        # nbdev runs every cell that contains an import, so a cell that also uses names from cells it
        # does not run fails (and fails nbdev_docs too). Here such a cell runs its imports only.
        imports = _imports_only(cell) if getattr(self, 'k', None) is not None else None
        if imports is None: return run_cell(self, cell)
        mixed.append(cell.source.strip().splitlines()[0][:60])
        self.k.run_cell(imports)
        if self.k.exc: raise RuntimeError(f'cell {cell.idx_}: {imports}') from self.k.exc
    exec_show_docs.__call__ = call
    mv_exports.begin = _mv_exports_begin
    _classes_as_classes()
    try: exec_nb(Path(src), Path(dst), FilterDefaults)
    except Exception as e:
        raise RuntimeError(f"nbdev could not process {Path(src).relative_to(ROOT)} for the docs: {e}") from None
    return dst, mixed


def _classes_as_classes():
    "fastcore writes every signature as `def Name(...)`, a class's too: an API entry of a class says `class Name(...)`."
    from inspect import isclass
    from fastcore.docments import DocmentText
    if getattr(DocmentText, '_litnn_classes', False): return
    plain = DocmentText.__str__
    def __str__(self):
        text = plain(self)
        return 'class ' + text[len('def '):] if isclass(self.obj) and text.startswith('def ') else text
    DocmentText.__str__ = DocmentText.__repr__ = __str__
    DocmentText._litnn_classes = True


def _mv_exports_begin(self):
    "nbdev's `mv_exports` (an `#| exports` cell's API entry goes first, then its code), not failing on a last cell."
    cells = self.nb.cells
    for cell in reversed([c for c in cells if c.cell_type == 'code' and 'exports' in c.directives_]):
        idx = cell.idx_
        if idx + 1 < len(cells) and getattr(cells[idx + 1], 'has_sd', 0):
            doc, src = cells.pop(idx + 1), cells.pop(idx)
            cells[idx:idx] = [doc, src]


def process_all(nbs, proc_dir, jobs, verbose=False):
    proc_dir.mkdir(parents=True, exist_ok=True)
    pairs = [(str(p), str(proc_dir/(p.relative_to(NBS).as_posix().replace('/', '__')))) for p in nbs]
    # One process per notebook, forked from this one after the heavy imports (about 1.5 s each)
    # are done once; where there is no fork, each process starts afresh.
    if 'fork' in get_all_start_methods():
        ctx = get_context('fork')
        import litnn, litnn.viz, nbdev.processors, nbdev.serve_drv, nbdev.showdoc, execnb.shell   # noqa: F401
        import matplotlib.pyplot, matplotlib_inline.backend_inline   # noqa: F401  (what each shell loads)
    else: ctx = get_context('spawn')
    with ctx.Pool(jobs, maxtasksperchild=1) as pool: done = pool.map(_process, pairs, chunksize=1)
    mixed = [f'  {Path(src).name}: the cell starting {first!r}' for (src, _), (_, firsts) in zip(pairs, done) for first in firsts]
    if mixed and verbose: print('docs: note (for nbdev_docs with Quarto): these cells mix imports with other code, which breaks nbdev_docs (Quarto); only their '
                    'imports ran here (put the imports in a cell of their own):\n' + '\n'.join(mixed))
    return [Path(d) for d, _ in done]


# --- 2. a processed notebook as a markdown page ----------------------------------------------------

_ANSI = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')
_DOC_LINK = None      # set in main(): nbdev's markdown links to the published site, [`x`](https://litnn.github.io/litnn/page.html#x)


def _text(v): return ''.join(v) if isinstance(v, list) else (v or '')


def _fence(body, cls):
    "A fenced block that its own backticks cannot close."
    ticks = '`' * max(3, 1 + max((len(m) for m in re.findall(r'`+', body)), default=0))
    return f'{ticks}{cls}\n{body.rstrip()}\n{ticks}'


def _front_matter(cell):
    import yaml
    src = _text(cell['source']).strip()
    if cell['cell_type'] != 'raw' or not src.startswith('---'): return None
    return yaml.safe_load(src.strip('-\n')) or {}


def _directives(src):
    "Quarto-style `#| key: value` lines at the top of a cell, and the code after them."
    lines, opts, i = src.splitlines(), {}, 0
    while i < len(lines) and (lines[i].startswith('#|') or not lines[i].strip()):
        if lines[i].startswith('#|'):
            k, _, v = lines[i][2:].strip().partition(':')
            opts[k.strip()] = v.strip().lower() or 'true'
        i += 1
    return opts, '\n'.join(lines[i:]).strip('\n')


def _outside_code(md, f):
    "Apply `f` to the parts of markdown `md` outside fenced code blocks."
    out, code = [], False
    for part in re.split(r'(^`{3,}.*$)', md, flags=re.M):
        if re.match(r'`{3,}', part): code = not code; out.append(part)
        else: out.append(part if code else f(part))
    return ''.join(out)


def _escape_headings(md):
    "Headings of show_doc entries name symbols: keep their underscores (`__dir__`) literal."
    esc = lambda m: m[1] + re.sub(r'(?<!\\)([_*])', r'\\\1', m[2])
    return _outside_code(md, lambda part: re.sub(r'^(#{1,6} )(.+)$', esc, part, flags=re.M))


def _display_math(md):
    "Put each `$$` block on lines of its own, with blank lines around it, as the markdown math extension needs."
    return _outside_code(md, lambda part: re.sub(r'(?s)\n?[ \t]*(\$\$.+?\$\$)[ \t]*\n?', r'\n\n\1\n\n', part))


class Page:
    "One notebook as a markdown page: `md` (links still pointing at the published site) and its image files."
    def __init__(self, nb_path, src_path):
        self.src = src_path
        self.stem = src_path.relative_to(NBS).with_suffix('').as_posix().replace('/', '__')
        self.files = {}                                      # file name -> bytes, written beside the page
        nb = json.loads(Path(nb_path).read_text(encoding='utf-8'))
        cells = nb['cells']
        fm = _front_matter(cells[0]) if cells else None
        if fm is not None: cells = cells[1:]
        fm = fm or {}
        self.nb = src_path.relative_to(NBS).with_suffix('').as_posix()
        # nbdev's links name a page by its path under nbs/ without the number (reference/nn/padding.html);
        # its front matter keeps only the file name, which two shelves may share (cuda.html)
        self.output_file = re.sub(r'(^|/)\d+[a-zA-Z0-9]*_([^/]*)$', r'\1\2', self.nb.lower()) + '.html'
        self.title = str(fm.get('title') or self.stem)
        parts = [f'# {self.title}']
        if fm.get('description'): parts.append(f"{fm['description']}\n{{: .description }}")
        blocks = [self._cell(cell) for cell in cells]
        _hoist_entry_headings(cells, blocks)
        for b in blocks: parts += b
        self.md = '\n\n'.join(p for p in parts if p and p.strip()) + '\n'

    def _cell(self, cell):
        src = _text(cell['source'])
        if cell['cell_type'] == 'markdown': return [_display_math(src)]
        if cell['cell_type'] != 'code': return []
        opts, code = _directives(src)
        if opts.get('include') == 'false': return []
        out = [_fence(code, 'python')] if code.strip() and opts.get('echo') != 'false' else []
        if opts.get('output') != 'false': out += [self._output(o) for o in cell.get('outputs', [])]
        return out

    def _output(self, o):
        kind = o.get('output_type')
        if kind == 'stream': return _fence(_ANSI.sub('', _text(o.get('text'))), '{.text .nb-output}')
        if kind == 'error': return _fence(_ANSI.sub('', '\n'.join(o.get('traceback', []))), '{.text .nb-output .nb-error}')
        data = o.get('data', {})
        for mime, ext in (('image/png', 'png'), ('image/jpeg', 'jpg'), ('image/svg+xml', 'svg')):
            if mime in data:
                name = f'{self.stem}_files/output_{len(self.files) + 1}.{ext}'
                raw = _text(data[mime])
                self.files[name] = raw.encode() if ext == 'svg' else base64.b64decode(raw)
                alt = html.escape(_text(data.get('text/plain', 'output')).strip().replace('\n', ' '))[:80]
                return f'![{alt}]({name.split("/", 1)[0]}/{name.split("/", 1)[1]}){{ .nb-image }}'
        if 'text/markdown' in data: return _escape_headings(_text(data['text/markdown']))
        if 'text/html' in data: return f'<div class="nb-output nb-html" markdown="0">\n{_text(data["text/html"]).strip()}\n</div>'
        if 'text/plain' in data: return _fence(_ANSI.sub('', _text(data['text/plain'])), '{.text .nb-output}')
        return ''


_ENTRY_HEAD = re.compile(r'(?s)\A(---\s*\n(?:\s*\[source\]\([^)]*\)\{[^}]*\}\s*\n)?\s*#{2,4} (\S[^\n]*)\n)(.*)\Z')

def _hoist_entry_headings(cells, blocks):
    """Put an API entry's heading (and its source link) above the prose that introduces it, so that the prose sits
    under the heading it explains (and search shows it there) rather than under the previous entry. Only for a
    prose cell without headings of its own that names the entry and is followed by the entry itself (or by the
    exported code and then the entry)."""
    for i, cell in enumerate(cells[:-1]):
        if cell['cell_type'] != 'markdown' or not blocks[i] or re.search(r'(?m)^#{1,6} ', _text(cell['source'])): continue
        for j in (i + 1, i + 2):
            if j >= len(cells) or not blocks[j]: continue
            m = _ENTRY_HEAD.match(blocks[j][-1])
            if m is None: continue
            name = re.sub(r'\\([_*])', r'\1', m[2]).split('.')[-1]
            if name not in _text(cell['source']): break
            if j == i + 2 and not (cells[i + 1]['cell_type'] == 'code' and len(blocks[i + 1]) == 1): break
            blocks[i].insert(0, m[1].strip()); blocks[j][-1] = m[3]
            break


def _relink(pages):
    "Point nbdev's links to the published site (`.../hooks.html#name`) at this site's page that has `#name`."
    from slugify_docs import slugify
    by_file = {}
    for p in pages: by_file.setdefault(p.output_file, []).append(p)
    anchors = {p.stem: {slugify(re.sub(r'\\([_*])', r'\1', h), '-') for h in re.findall(r'^#{1,6} (.+)$', p.md, re.M)}
               for p in pages}
    def local(m):
        text, file, anchor = m[1], m[2], m[3] or ''
        cands = by_file.get(file, [])
        if not cands: return m[0]                  # a page this site does not have: leave the link alone
        best = next((p for p in cands if not anchor or anchor[1:] in anchors[p.stem]), None)
        # nbdev links every exported name, private helpers too, but only documented ones have an entry
        return f'[{text}]({best.stem}.md{anchor})' if best else text
    by_nb = {p.nb: p for p in pages}
    for p in pages:
        def notebook(m):                           # a link to a notebook of nbs/ (which works in Jupyter) -> its page
            target = os.path.normpath((Path(p.nb).parent/m[1]).as_posix())
            return f'({by_nb[target].stem}.md{m[2] or ""})' if target in by_nb else m[0]
        p.md = re.sub(r'\(((?:\.\./|[\w-]+/)*[\w-]+)\.ipynb(#[^)\s]*)?\)', notebook, _DOC_LINK.sub(local, p.md))


# --- 3. mkdocs -----------------------------------------------------------------------------------------

def _nav(pages):
    "Home and the overview at the top, then each part of the book and each reference shelf with its pages (nbs/book.yml)."
    nav = []
    for p in pages:
        entry, group = {nav_title(p.nb, p.title): f'{p.stem}.md'}, section_of(p.nb)
        if group is None: nav.append(entry)
        elif nav and isinstance(nav[-1].get(group), list): nav[-1][group].append(entry)
        else: nav.append({group: [entry]})
    return nav

def nav_title(nb, title):
    "What the navigation calls a page: its title, or the table's `title:` where it gives one (the README's page)."
    from book import parts
    if nb == 'index': return 'Home'
    return next((c.get('title', title) for _, _, chs in parts() for c in chs if c['nb'] == nb), title)


def write_site(pages, build_dir, out_dir, strict=True):
    import yaml
    docs = build_dir/'docs'
    if docs.exists(): shutil.rmtree(docs)
    docs.mkdir(parents=True)
    for p in pages:
        (docs/f'{p.stem}.md').write_text(p.md, encoding='utf-8')
        for name, data in p.files.items():
            (docs/name).parent.mkdir(parents=True, exist_ok=True)
            (docs/name).write_bytes(data)
    for extra in (NBS).glob('*'):                 # images and other files the notebooks refer to
        if extra.is_file() and extra.suffix.lower() in ('.png', '.jpg', '.jpeg', '.gif', '.svg'):
            shutil.copy2(extra, docs/extra.name)
    shutil.copy2(DOCS_CFG/'extra.css', docs/'extra.css')
    (docs/'javascripts').mkdir()
    shutil.copy2(DOCS_CFG/'iframe-worker-shim.js', docs/'javascripts'/'iframe-worker-shim.js')
    cfg = yaml.safe_load((DOCS_CFG/'mkdocs.yml').read_text(encoding='utf-8'))
    cfg.update(docs_dir=str(docs), site_dir=str(out_dir), hooks=[str(DOCS_CFG/'hooks.py')],
               nav=_nav(pages))
    for ext in cfg['markdown_extensions']:        # headings get Quarto's ids, which nbdev's doc links use
        if isinstance(ext, dict) and 'toc' in ext: ext['toc']['slugify'] = '!!python/name:slugify_docs.slugify'
    text = yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True).replace("'!!python/name:slugify_docs.slugify'",
                                                                            '!!python/name:slugify_docs.slugify')
    (build_dir/'mkdocs.yml').write_text(text, encoding='utf-8')
    import logging
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort
    os.environ.setdefault('NO_MKDOCS_2_WARNING', '1')
    log = logging.getLogger('mkdocs')
    if not log.handlers:
        h = logging.StreamHandler(); h.setFormatter(logging.Formatter('mkdocs %(levelname)s: %(message)s'))
        log.addHandler(h); log.setLevel(logging.WARNING)
    try: build(load_config(str(build_dir/'mkdocs.yml'), strict=strict))
    except Abort as e: raise SystemExit(f'docs: mkdocs stopped: {e} (the warnings above say why)') from None


def _check_clearable(path):
    "A folder this script may replace: never the repository, a folder above it, a git tree or home."
    if path == ROOT or path in ROOT.parents or (path/'.git').exists() or path == Path.home():
        raise SystemExit(f'docs: will not replace {path}: choose another --out / --build-dir')


def _clear(path):
    _check_clearable(path)
    if path.exists(): shutil.rmtree(path)


def main(argv=None):
    global _DOC_LINK
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', default=str(ROOT/'_site'), help='where the site goes (default: _site/)')
    ap.add_argument('--build-dir', default=None, help='working folder (default: _site_build/ beside --out)')
    ap.add_argument('--jobs', type=int, default=min(2, os.cpu_count() or 1), help='notebooks processed at once')
    ap.add_argument('--verbose', action='store_true', help="also list the cells that would trouble nbdev_docs (Quarto)")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    build_dir = Path(args.build_dir).resolve() if args.build_dir else out.parent/(out.name + '_build')
    for p in (out, build_dir): _check_clearable(p)
    sys.path.insert(0, str(DOCS_CFG))
    from nbdev.config import get_config
    cfg = get_config(path=ROOT)
    site = re.escape(cfg.doc_host.rstrip('/') + '/' + cfg.doc_baseurl.strip('/') + '/')
    _DOC_LINK = re.compile(r'\[([^\]\n]*)\]\(' + site + r'([\w./-]+?\.html)(#[^\s)"\'>]*)?\)')
    t0 = time.time()
    nbs = notebooks()
    _clear(build_dir)
    procs = process_all(nbs, build_dir/'proc', args.jobs, args.verbose)
    t1 = time.time()
    pages = [Page(proc, src) for proc, src in zip(procs, nbs)]
    _relink(pages)
    _clear(out)
    write_site(pages, build_dir, out)
    print(f'docs: {len(pages)} pages in {out} (nbdev processing {t1 - t0:.0f}s, rendering {time.time() - t1:.0f}s); '
          f'open {out/"index.html"}')
    return pages


if __name__ == '__main__': main()
