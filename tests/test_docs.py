"""The docs site, as a reader sees it: `tools/build_docs.py` builds it from every notebook in nbs/
(offline), and a real headless Chromium (Debian's `chromium` and `chromedriver`, driven by selenium)
opens every page. The navigation must follow the book's table (nbs/book.yml) and the home page must give
the Module path; each page must show its title, its headings, its images and an API entry for each
exported definition, must not leak raw markdown or notebook JSON, and every link on it must
resolve; search must work from `file://`; math must be MathML. Screenshots of the reading page, the
registration chapter and others are kept in `_site_test/<test process>/screenshots/`.

Why selenium and not `chromium --dump-dom`: the checks need the page after its scripts ran (the
search box, the navigation) and measurements a DOM dump lacks (an image's decoded size, a formula's
height, the browser's own console errors). chromedriver comes from Debian with the browser and
selenium talks to it directly, so nothing is downloaded."""
import ast, json, os, re, shutil, subprocess, sys, tempfile, time
from collections import Counter
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse
try: import fcntl
except ImportError: fcntl = None                           # Windows: no xdist workers to share a site with here

import pytest

ROOT = Path(__file__).resolve().parent.parent
# One site per test run (5 minutes on two cores): tools/test_all.sh gives each test file to one pytest-xdist worker
# (`--dist loadfile`); under other distributions the first worker to need the site builds it while the others wait on
# a lock and then read the same pages; a stamp names the run that built it.
OUT = ROOT/'_site_test'
RUN = os.environ.get('PYTEST_XDIST_TESTRUNUID') or f'process {os.getpid()}'
SITE, BUILD = OUT/'site', OUT/'build'
SHOTS = OUT/'screenshots'/os.environ.get('PYTEST_XDIST_WORKER', 'main')
sys.path.insert(0, str(ROOT/'tools'))
from build_docs import nav_title, notebooks, section_of  # noqa: E402
from book import module_path, parts  # noqa: E402

NBS = notebooks()
CHROMIUM, CHROMEDRIVER = shutil.which('chromium'), shutil.which('chromedriver')


# --- what each page must show, read from its notebook ---------------------------------------------

def _src(c): return ''.join(c['source']) if isinstance(c['source'], list) else c['source']


def _directives(c): return {l[2:].strip().split(':')[0].strip() for l in _src(c).splitlines() if l.startswith('#|')}


def _plain(md):
    "Markdown inline text as a browser shows it."
    md = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', md)
    md = re.sub(r'<[^>]+>', '', md).replace('`', '').replace('**', '').replace('\\', '')
    return ' '.join(md.split())


@lru_cache(maxsize=None)
def expected(nb_path):
    "The title, `##` headings, image count and documented definitions the page of `nb_path` must show."
    cells = json.loads(Path(nb_path).read_text(encoding='utf-8'))['cells']
    title, headings, images, defs = None, [], 0, []
    for c in cells:
        src, dirs = _src(c), _directives(c)
        if c['cell_type'] == 'markdown':
            in_code = False
            for line in src.splitlines():
                if line.startswith('```'): in_code = not in_code
                elif not in_code and (m := re.match(r'(#{1,2}) (.+)', line)):
                    if m[1] == '#' and title is None: title = _plain(m[2])
                    elif m[1] == '##': headings.append(_plain(m[2]))
        elif c['cell_type'] == 'code' and not dirs & {'hide', 'export', 'exporti', 'default_exp'}:
            images += sum(1 for o in c.get('outputs', []) if 'image/png' in o.get('data', {}))
        if c['cell_type'] == 'code' and dirs & {'export', 'exports'}:
            defs += _documented(src)
    return title or Path(nb_path).stem, headings, images, defs


@lru_cache(maxsize=None)
def unlinkable(nb_path):
    """The API entries of a notebook that nbdev cannot link to their source: definitions written into a private module
    or a package's `__init__.py` (nbdev indexes neither), and the classes and functions shown under the name torch
    gives them (`__module__` set to `litnn`, as `torch.Tensor`'s is `torch`), which is not the file that defines them."""
    import importlib
    cells = json.loads(Path(nb_path).read_text(encoding='utf-8'))['cells']
    default = next((m[1] for c in cells if (m := re.search(r'^#\|\s*default_exp\s+(\S+)', _src(c), re.M))), None)
    out = set()
    for c in cells:
        m = re.match(r'#\|\s*(?:export|exports|exporti)(?:[ \t]+(\S+))?[ \t]*$', _src(c).split('\n')[0]) if c['cell_type'] == 'code' else None
        if not m: continue
        target, names = m[1] or default, _documented(_src(c), dunders=True)
        if any(part.startswith('_') for part in target.split('.')): out |= set(names); continue
        mod = importlib.import_module('litnn.' + target)
        for n in names:
            obj = next((v for k, v in vars(mod).items() if k.lower() == n), None)
            if obj is not None and getattr(obj, '__module__', mod.__name__) != mod.__name__: out.add(n)
    return out


def private_module(nb):
    "Is the notebook's module private (`litnn/_tensor_str.py`)? nbdev indexes no source links there."
    first = _src(json.loads(Path(nb).read_text(encoding='utf-8'))['cells'][0])
    m = re.search(r'#\|\s*default_exp\s+(\S+)', first)
    return bool(m) and any(part.startswith('_') for part in m[1].split('.'))


def _documented(src, dunders=False):
    """Ids of the API entries nbdev makes for an export cell: public functions and classes, `@patch`ed methods (and, with
    `dunders`, the `__x__` methods nbdev may document as well)."""
    try: tree = ast.parse('\n'.join(l for l in src.splitlines() if not l.startswith('#|')))
    except SyntaxError: return []
    ids = []
    for n in tree.body:
        if not isinstance(n, (ast.FunctionDef, ast.ClassDef)): continue
        if n.name.startswith('_') and not (dunders and n.name.startswith('__') and n.name.endswith('__')): continue
        patched = [a for a in getattr(n, 'decorator_list', []) if 'patch' in ast.unparse(a)]
        if patched and isinstance(n, ast.FunctionDef) and n.args.args and n.args.args[0].annotation is not None:
            cls = ast.unparse(n.args.args[0].annotation)
            if '|' in cls or '(' in cls or ',' in cls: continue     # patched onto several classes
            if cls.startswith('_'): continue                         # onto a private class: nbdev documents none
            ids.append(f'{cls}.{n.name}'.lower())
        elif not patched: ids.append(n.name.lower())
    return ids


# --- the site and the browser ----------------------------------------------------------------------

@pytest.fixture(scope='module')
def site():
    OUT.mkdir(exist_ok=True)
    stamp = OUT/'built by'
    with open(OUT/'.lock', 'w') as lock:
        if fcntl: fcntl.flock(lock, fcntl.LOCK_EX)          # released when the file closes
        if stamp.exists() and stamp.read_text() == RUN: return SITE
        for d in (SITE, BUILD):
            if d.exists(): shutil.rmtree(d)
        stamp.unlink(missing_ok=True)
        t = time.time()
        r = subprocess.run([sys.executable, 'tools/build_docs.py', '--out', str(SITE), '--build-dir', str(BUILD)],
                           cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 0, f'tools/build_docs.py failed:\n{r.stdout[-5000:]}\n{r.stderr[-5000:]}'
        stamp.write_text(RUN)
    print(f'\ndocs site built in {time.time() - t:.0f}s: {SITE}')
    return SITE


@pytest.fixture(scope='module')
def browser():
    assert CHROMIUM and CHROMEDRIVER, ('tests/test_docs.py opens the docs in Chromium: install Debian\'s packages '
                                       '`apt-get install -y chromium chromium-driver` (tools/test_all.sh does it as root)')
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix='litnn-chromium-')
    for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
              '--disable-background-networking', '--disable-component-update', '--disable-sync',
              '--disable-dev-shm-usage', f'--user-data-dir={profile}', '--window-size=1400,1000'):
        opts.add_argument(a)
    opts.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    os.environ.setdefault('SE_OFFLINE', 'true')            # selenium must never try to download a driver
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def page_of(nb): return SITE/(nb.relative_to(ROOT/'nbs').with_suffix('.html').as_posix().replace('/', '__'))


def open_page(browser, path, wait_for='.md-content h1'):
    browser.get(path.as_uri())
    for _ in range(100):
        if browser.execute_script(f"return !!document.querySelector('{wait_for}') && document.readyState === 'complete'"): break
        time.sleep(0.05)
    return browser.get_log('browser')      # and empties it for the next page


@lru_cache(maxsize=None)
def ids_in(path):
    return set(re.findall(r'\sid="([^"]+)"', Path(path).read_text(encoding='utf-8')))


# --- the tests ---------------------------------------------------------------------------------------

def rel(nb): return nb.relative_to(ROOT/'nbs').with_suffix('').as_posix()


def test_every_notebook_is_a_page_in_reading_order(site, browser):
    "Home and the overview first, then each part of the book and each reference shelf with its pages, in nbs/book.yml's order."
    open_page(browser, site/'index.html')
    nav = browser.execute_script("""
      const link = a => [a.textContent.trim(), a.getAttribute('href').split('#')[0]];
      return [...document.querySelectorAll('nav.md-nav--primary > ul > li')].map(li => {
        const a = li.querySelector(':scope > a.md-nav__link');
        if (a) return link(a);
        return [li.querySelector(':scope > label.md-nav__link').textContent.trim(),
                [...li.querySelectorAll(':scope > nav > ul > li > a.md-nav__link')].map(link)];
      });""")
    want = []
    for nb in NBS:
        entry, group = [nav_title(rel(nb), expected(nb)[0]), page_of(nb).name], section_of(rel(nb))
        if group is None: want.append(entry)
        elif want and want[-1][0] == group and isinstance(want[-1][1], list): want[-1][1].append(entry)
        else: want.append([group, [entry]])
    assert nav == want
    groups = [g for g, _ in nav if isinstance(_, list)]
    assert groups == [t for t, _, _ in parts()] and all(page_of(nb).is_file() for nb in NBS)
    assert [g for g in groups if not g.startswith('Reference')][:3] == ['Start', 'Tensors and autograd', 'The Module']


# The code of the mechanisms the notebooks teach is on their pages, not only their API entries (`#| exports`).
KEY_CODE = {'12_backprop_graph': ['def apply(cls', 'def _record('], '13_backprop_engine': ['def _execute('],
            '21_registration': ['def __setattr__(self'], '24_apply_to': ['def _apply(self'],
            '25_hooks': ['def _call_impl(self'], '26_state_dict': ['def state_dict(self', 'def _load_from_state_dict(self']}


@pytest.mark.parametrize('stem', KEY_CODE)
def test_key_mechanisms_show_their_code(site, stem):
    text = page_of(ROOT/'nbs'/f'{stem}.ipynb').read_text(encoding='utf-8')
    code = re.sub(r'<[^>]+>', '', text).replace('&quot;', '"').replace('&#39;', "'").replace('&lt;', '<').replace('&gt;', '>').replace('&amp;', '&')
    assert [k for k in KEY_CODE[stem] if k not in code] == []


JS_PAGE = r"""
const art = document.querySelector('article.md-content__inner');
const text = el => el.textContent.replace(/¶/g, '').replace(/\s+/g, ' ').trim();
const clone = art.cloneNode(true);
clone.querySelectorAll('pre, code, math, script, style, .md-source-file').forEach(e => e.remove());
return {
  title: document.title,
  h1: [...art.querySelectorAll('h1')].map(text),
  h2: [...art.querySelectorAll('h2')].map(text),
  images: [...art.querySelectorAll('img')].map(i => [i.getAttribute('src'), i.complete, i.naturalWidth, i.getBoundingClientRect().width]),
  prose: clone.innerText,
  tex_left: art.querySelectorAll('.arithmatex').length,
  toc: document.querySelectorAll('nav.md-nav--secondary a.md-nav__link').length,
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  sideways: [document.documentElement.scrollWidth > window.innerWidth ? 'the page' : null,   // at 1400 px nothing scrolls sideways
             ...[...art.querySelectorAll('pre, table, .math-block')].filter(e => e.scrollWidth > e.clientWidth + 1)
                  .map(e => e.textContent.trim().slice(0, 60))].filter(x => x),
  entries: [...art.querySelectorAll('h2[id], h3[id], h4[id]')].map(h => [h.id, (() => {   // its signature: next, or after the
               const next = h.nextElementSibling;                                             // prose hoisted under it
               if (next && next.querySelector('pre')) return true;
               const name = h.textContent.replace(/¶/g, '').trim().split('.').pop();           // nbdev's `def name(` / `class Name(`
               for (let e = next; e && !/^H[1-4]$/.test(e.tagName); e = e.nextElementSibling)
                 if ([...e.querySelectorAll('pre')].some(p => (p.textContent.trim().startsWith(`def ${name}(`) || p.textContent.trim().startsWith(`class ${name}(`)))) return true;
               return false; })(),
             !!(h.previousElementSibling && [...h.previousElementSibling.querySelectorAll('a')].some(a => a.textContent.trim() === 'source'))]),
};
"""

LEAKS = {  # what unrendered markdown, Quarto syntax or notebook JSON would look like on the page
    'a markdown heading': r'(?m)^\s*#{1,6} \S', 'a code fence': r'```', 'notebook JSON': r'"(cell_type|execution_count|outputs)":',
    'an attribute list': r'\{:|\{target=', 'a markdown link': r'\]\((https?:|\S+\.(md|html|ipynb))', 'a directive': r'(?m)^#\| ',
    'display math': r'\$\$', 'a Quarto div': r'(?m)^:::', 'raw HTML': r'</?(div|span|img|table)\b',
}


@pytest.mark.parametrize('nb', NBS, ids=rel)
def test_page(site, browser, nb):
    path = page_of(nb)
    console = open_page(browser, path)
    got = browser.execute_script(JS_PAGE)
    title, headings, n_images, defs = expected(nb)
    assert got['h1'] == [title] and got['title'].startswith((title, nav_title(rel(nb), title)))   # the nav's name, where the table gives one
    assert [h for h in headings if h not in got['h2']] == [], 'headings missing'
    assert len(got['images']) >= n_images, f"{n_images} images in the notebook, {len(got['images'])} on the page"
    assert [i for i in got['images'] if not (i[1] and i[2] > 0 and i[3] > 0)] == [], 'images that do not show'
    leaks = {k: m.group(0) for k, p in LEAKS.items() if (m := re.search(p, got['prose']))}
    assert leaks == {}, 'raw source on the page'
    assert got['tex_left'] == 0, 'math left as TeX'
    assert got['sideways'] == [], 'content wider than the page at 1400 px'
    if got['h2']: assert got['toc'] >= len(got['h2']), 'the table of contents lacks headings'
    # an API entry: a heading followed by its signature; its id is the name, `_1`, `_2`... when a section
    # heading (`## Sequential`) or another definition (`tensor` beside `Tensor`) came first
    entries = [(re.sub(r'_\d+$', '', i), src) for i, sig, src in got['entries'] if sig]
    have = Counter(i for i, _ in entries)
    assert sorted((Counter(defs) - have).elements()) == [], 'exported definitions without an API entry'
    linkable = [(i, src) for i, src in entries if i not in unlinkable(nb)]
    if linkable and not private_module(nb):   # nbdev links each entry to its source, but not in private modules
        assert sum(src for _, src in linkable) >= 0.8 * len(linkable), 'API entries without a link to the source'
    bad = []
    for href in got['links']:
        u = urlparse(href)
        if u.scheme != 'file': continue
        target = Path(unquote(u.path))
        if not target.is_file(): bad.append(href)
        elif u.fragment and target.suffix == '.html' and unquote(u.fragment) not in ids_in(target): bad.append(href)
    assert bad == [], 'links that do not resolve'
    errors = [e['message'] for e in console if e['level'] == 'SEVERE']
    assert errors == [], 'errors in the browser console'


@pytest.mark.parametrize('nb,cls', [('reference/distributions/von_mises', 'VonMises'), ('21_registration', 'Module'),
                                    ('20_parameter', 'Parameter')])
def test_classes_render_as_classes(site, nb, cls):
    "A class's API entry shows `class Name(...)`, not the `def Name(...)` fastcore writes for every signature."
    text = html_text(page_of(ROOT/'nbs'/f'{nb}.ipynb'))
    assert f'class {cls}(' in text and f'def {cls}(' not in text


def html_text(path):
    "A page's text with its tags and entities undone (code included)."
    text = re.sub(r'<[^>]+>', '', Path(path).read_text(encoding='utf-8'))
    return text.replace('&quot;', '"').replace('&#39;', "'").replace('&lt;', '<').replace('&gt;', '>').replace('&amp;', '&')


def test_reading_page(site, browser):
    """The site opens on the page for readers: what litnn is, then the Module path, each chapter a link to its page
    with the question it answers, in nbs/book.yml's order; the README's install and test notes are a page of their own."""
    open_page(browser, site/'index.html')
    got = browser.execute_script("""
      const h = [...document.querySelectorAll('article h2')].find(h => h.textContent.includes('The Module path'));
      if (!h) return null;
      let e = h.nextElementSibling; while (e && e.tagName !== 'OL') e = e.nextElementSibling;
      return e && [...e.querySelectorAll(':scope > li')].map(li => [li.querySelector('a').getAttribute('href'), li.textContent]);""")
    want = module_path()
    assert got is not None and len(want) >= 10
    assert [href for href, _ in got] == [page_of(ROOT/'nbs'/f'{nb}.ipynb').name for nb, _ in want]
    assert [text for (_, text), (_, q) in zip(got, want) if _plain(q) not in ' '.join(text.split())] == []
    prose = browser.execute_script("return document.querySelector('article').innerText")
    assert 'tools/test_all.sh' not in prose and 'pip install' not in prose     # those are on the README's page


# Pictures where a reader would rather look than read: each of these pages shows one, drawn and loaded.
PICTURES = {'12_backprop_graph': 'the autograd graph before and after backward', '22_traversal': 'the module tree',
            '25_hooks': 'the hook timeline of a forward', '25a_backward_hooks': 'the hook timeline, forward and backward',
            '26_state_dict': 'the state_dict laid out against the tree', 'overview': 'the map of the book'}


@pytest.mark.parametrize('stem', PICTURES)
def test_pictures(site, browser, stem):
    open_page(browser, page_of(ROOT/'nbs'/f'{stem}.ipynb'))
    for _ in range(40):
        if browser.execute_script("return [...document.images].every(i => i.complete)"): break
        time.sleep(0.05)
    imgs = browser.execute_script("return [...document.querySelectorAll('article img')].map(i => "
                                  "[i.complete, i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width])")
    assert imgs, f'no picture of {PICTURES[stem]}'
    assert all(done and w > 200 and h > 100 and shown > 200 for done, w, h, shown in imgs), imgs


def test_search_works_offline(site, browser):
    open_page(browser, site/'index.html')
    from selenium.webdriver.common.by import By
    box = browser.find_element(By.CSS_SELECTOR, 'input.md-search__input')
    box.click(); box.send_keys('register_forward_hook')
    hits = []
    for _ in range(100):
        hits = browser.execute_script("return [...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)")
        if hits: break
        time.sleep(0.05)
    hooks = [nb for nb in NBS if nb.stem.endswith('25_hooks')]
    assert any(page_of(hooks[0]).name + '?h=register_forward_hook#module.register_forward_hook' in h for h in hits), hits


def test_math_is_mathml(site, browser):
    open_page(browser, page_of(ROOT/'nbs'/'12_backprop_graph.ipynb'))
    sizes = browser.execute_script("return [...document.querySelectorAll('article math')].map(m => m.getBoundingClientRect().height)")
    assert len(sizes) >= 3 and min(sizes) > 10                # drawn by the browser, no script, no network


def test_screenshots(site, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = {'reading_page': site/'index.html', 'registration': page_of(ROOT/'nbs'/'21_registration.ipynb'), 'backprop_graph': page_of(ROOT/'nbs'/'12_backprop_graph.ipynb'),
             'overview': page_of(ROOT/'nbs'/'overview.ipynb'), 'engine_walk': page_of(ROOT/'nbs'/'13_backprop_engine.ipynb')}
    for name, page in shots.items():
        open_page(browser, page)
        if name == 'reading_page':      # the Module path, the page's reason to be
            browser.execute_script("document.getElementById('the-module-path').scrollIntoView()")
            time.sleep(0.5)
        if name == 'engine_walk':       # the real engine's walk, its code on the page
            assert browser.execute_script(
                "const c = [...document.querySelectorAll('article pre')].find(p => p.textContent.includes('def _execute('));"
                "if (c) c.scrollIntoView(); return !!c;")
            time.sleep(0.5)
        if name == 'backprop_graph':
            browser.execute_script("document.getElementById('the-graph-drawn').scrollIntoView()")
            for _ in range(40):       # the picture is loaded before the shot
                if browser.execute_script("return [...document.images].every(i => i.complete)"): break
                time.sleep(0.05)
            time.sleep(0.5)           # and the header has finished its change to the page's title
        out = SHOTS/f'{name}.png'
        browser.save_screenshot(str(out))
        data = out.read_bytes()
        assert data[:8] == b'\x89PNG\r\n\x1a\n' and len(data) > 30_000, f'{out} looks empty'
    print(f'\nscreenshots: {SHOTS}')
