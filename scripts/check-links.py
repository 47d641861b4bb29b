#!/usr/bin/env python3
"""Fails on a broken link in a built book: every relative href and src of every HTML file must name a
file of the book, and every #fragment an id of the page it points at (issue 51).

    scripts/check-links.py www/docs

mdBook 0.5 writes a link to a missing chapter or heading without a word, and mdbook-linkcheck does
not run with mdBook 0.5; this reads the HTML mdBook wrote, offline, links into the page's own
headings included. Links with a scheme (https:, mailto:) are not followed: the check needs no network.
"""
import html.parser
import pathlib
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def parse(path):
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def main():
    book = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "www/docs").resolve()
    # mdBook's 404 page links from the site's root (its site-url), wherever the book is served.
    pages = {path: parse(path) for path in sorted(book.rglob("*.html")) if path.name != "404.html"}
    if not pages:
        raise SystemExit(f"{book}: no HTML: build the book first (mdbook build docs)")
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue
            target = (path.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if book not in target.parents and target != book:
                broken.append(f"{path.relative_to(book)}: {link} leads out of the book")
            elif not target.exists():
                broken.append(f"{path.relative_to(book)}: {link}: no such file")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target).ids
                if urllib.parse.unquote(parts.fragment) not in ids:
                    broken.append(f"{path.relative_to(book)}: {link}: no such anchor")
    for problem in broken:
        print(problem, file=sys.stderr)
    links = sum(len(page.links) for page in pages.values())
    print(f"check-links: {links} links in {len(pages)} pages, {len(broken)} broken")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
