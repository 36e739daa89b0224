"""The console's first page within its budget (issue 41: at most 250 KB of gzip JavaScript), measured on the build
as bench/console.py measures it: a size, so a test may assert it (the load time is only reported)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.console import BUDGET_JS_GZIP, DIST, first_page, gzip_size


def test_the_first_page_loads_at_most_250_kb_of_gzip_javascript() -> None:
    if not (DIST / "index.html").is_file():
        pytest.fail(f"the console is not built ({DIST}/index.html is missing): run `make console` (make test does)")
    first = first_page()
    assert first.scripts and first.styles
    js = first.js_gzip()
    assert js <= BUDGET_JS_GZIP, (
        f"the console's first page loads {js / 1024:.0f} KB of gzip JavaScript, over the {BUDGET_JS_GZIP // 1024} KB "
        "budget: load the heavy pages lazily (App.tsx's lazy()), " + ", ".join(p.name for p in first.scripts)
    )


def test_the_first_page_is_index_html_s_scripts_and_what_they_import_statically_never_the_lazy_pages(
    tmp_path: Path,
) -> None:
    assets = tmp_path / "assets"
    assets.mkdir()
    (tmp_path / "index.html").write_text(
        '<script type="module" crossorigin src="/assets/index-a.js"></script>\n'
        '<link rel="modulepreload" crossorigin href="/assets/vendor-b.js">\n'
        '<link rel="stylesheet" crossorigin href="/assets/index-c.css">\n'
    )
    files = {
        "index-a.js": b'import{h as x}from"./vendor-b.js";import"./shared-d.js";'
        b'const P=()=>import("./Keys-e.js");export*from"./re-f.js";',
        "vendor-b.js": b"export const h=1;" + bytes(range(256)) * 40,
        "shared-d.js": b'import{h}from"./vendor-b.js";',
        "Keys-e.js": b'import{big}from"./chart-g.js";' + b"k" * 5000,  # lazy, and what only it imports
        "re-f.js": b"export const r=2;",
        "chart-g.js": b"export const big=1;" + bytes(range(256)) * 400,
        "index-c.css": b"body{margin:0}",
    }
    for name, body in files.items():
        (assets / name).write_bytes(body)
    first = first_page(tmp_path)
    assert [p.name for p in first.scripts] == ["index-a.js", "re-f.js", "shared-d.js", "vendor-b.js"]
    assert [p.name for p in first.styles] == ["index-c.css"]
    expected = sum(gzip_size(files[p.name]) for p in first.scripts)
    assert first.js_gzip() == expected
