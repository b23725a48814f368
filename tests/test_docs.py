"""docs/ stays true to the code: every catalogue test has its page, each page names its
parameters, the generated tables are current, the drive facts agree with the presets, and every
docs/ path the code and the docs cite exists (so renaming a page fails here, not for a reader)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

from ssdlab.methods import REGISTRY, VARIANTS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
METHODS = DOCS / "methods"
PRESETS = ROOT / "crates" / "ssdsim" / "presets"
# Pages of docs/methods/ that are not one catalogue test's page.
SHARED_METHOD_PAGES = {"README.md", "steady-state.md"}

# Where code, comments and docs may cite docs/ paths.
CITING_GLOBS = {
    "python": ("**/*.py", "**/*.pyi"),
    "crates": ("**/*.rs", "**/*.toml", "**/*.md", "**/*.txt"),
    "bench": ("**/*.py",),
    "docs": ("**/*.md", "**/*.py"),
}
CITING_FILES = ("README.md", "Makefile", "pyproject.toml")
DOCS_PATH = re.compile(r"docs/[\w./-]*[\w/]")
# After a cited page: more pages of the same folder (", wsat.md") and a quoted section name.
SIBLING = re.compile(r",\s*([\w-]+\.md)")
SECTION = re.compile(r'\s*,?\s*"([^"\n]+)"')
LINK = re.compile(r"\]\(([^)\s]+)\)")


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_methods", DOCS / "gen_methods.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_methods"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


gen = load_generator()


def method_page(name: str) -> str:
    return (METHODS / f"{name}.md").read_text(encoding="utf-8")


# --- the catalogue ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_catalogue_test_has_a_page(name: str) -> None:
    assert (METHODS / f"{name}.md").is_file(), f"docs/methods/{name}.md is missing"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_page_names_every_parameter(name: str) -> None:
    text = method_page(name)
    missing = [field for field in REGISTRY[name].params_model.model_fields if f"`{field}`" not in text]
    assert not missing, f"docs/methods/{name}.md does not name {missing}"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_variant_is_described_on_its_methods_page(variant: str) -> None:
    test = VARIANTS[variant].test
    assert f"`{variant}`" in method_page(test), f"docs/methods/{test}.md does not mention {variant}"


def test_method_pages_are_catalogue_tests_or_shared_pages() -> None:
    pages = {p.name for p in METHODS.glob("*.md")}
    orphans = pages - {f"{name}.md" for name in REGISTRY} - SHARED_METHOD_PAGES
    assert not orphans, f"pages of no catalogue test (renamed or removed?): {sorted(orphans)}"


def test_generated_tables_are_current() -> None:
    stale = gen.stale_pages()
    names = [str(p.relative_to(ROOT)) for p in stale]
    assert not stale, f"stale: {names}; run `.venv/bin/python docs/gen_methods.py` and commit the pages"


class _Documented(BaseModel):
    span_bytes: int = 1


class _Grown(_Documented):
    new_knob: int = 2


def test_a_parameter_without_a_meaning_is_refused() -> None:
    table = {"_Documented": {"span_bytes": "the span"}}
    assert gen.meanings_for(_Documented, table) == {"span_bytes": "the span"}
    with pytest.raises(gen.DocsError, match="new_knob"):
        gen.meanings_for(_Grown, table)


def test_a_meaning_of_a_removed_parameter_is_refused() -> None:
    table = {"_Documented": {"span_bytes": "the span", "old_knob": "gone"}}
    with pytest.raises(gen.DocsError, match="old_knob"):
        gen.meanings_for(_Documented, table)


def test_meanings_of_a_model_the_catalogue_lacks_are_refused() -> None:
    gen.check_meanings(gen.MEANINGS)
    with pytest.raises(gen.DocsError, match="RenamedParams"):
        gen.check_meanings({**gen.MEANINGS, "RenamedParams": {"seed": "a seed"}})


def test_a_page_without_its_generated_block_is_refused() -> None:
    page = METHODS / "example.md"
    with pytest.raises(gen.DocsError, match="missing"):
        gen.render(page, "# prose only\n", {"params": lambda: "table"})
    text = "prose\n<!-- BEGIN GENERATED params -->\nold\n<!-- END GENERATED params -->\nmore prose\n"
    assert gen.render(page, text, {"params": lambda: "new"}) == (
        "prose\n<!-- BEGIN GENERATED params -->\n\nnew\n\n<!-- END GENERATED params -->\nmore prose\n")


# --- citations of docs/ paths ---------------------------------------------------------------


def citing_files() -> list[Path]:
    found = [ROOT / name for name in CITING_FILES if (ROOT / name).is_file()]
    for folder, patterns in CITING_GLOBS.items():
        for pattern in patterns:
            found += [p for p in (ROOT / folder).glob(pattern) if "target" not in p.relative_to(ROOT).parts]
    return sorted(set(found))


def citations(text: str) -> list[tuple[str, str | None]]:
    """(docs path, quoted section or None) for every docs/ path in a text, siblings included."""
    found: list[tuple[str, str | None]] = []
    for match in DOCS_PATH.finditer(text):
        paths, end = [match.group()], match.end()
        while sibling := SIBLING.match(text, end):
            paths.append(str(Path(match.group()).parent / sibling.group(1)))
            end = sibling.end()
        section = SECTION.match(text, end)
        found += [(path, section.group(1) if section and path.endswith(".md") else None) for path in paths]
    return found


def all_citations() -> list[tuple[str, str, str | None]]:
    found = {(str(f.relative_to(ROOT)), path, section)
             for f in citing_files() for path, section in citations(f.read_text(encoding="utf-8"))}
    return sorted(found, key=lambda c: (c[0], c[1], c[2] or ""))


def headings_and_terms(page: Path) -> str:
    """The headings and bold terms of a page, lower-case: what a quoted section name refers to."""
    text = page.read_text(encoding="utf-8")
    return "\n".join([*re.findall(r"^#+\s*(.+)$", text, re.M), *re.findall(r"\*\*([^*]+)\*\*", text)]).lower()


def test_citations_are_found() -> None:
    assert citations('see docs/methods/consistency.md, wsat.md, pts-iops.md.') == [
        ("docs/methods/consistency.md", None), ("docs/methods/wsat.md", None), ("docs/methods/pts-iops.md", None)]
    assert citations('(docs/architecture.md, "Target", §2)') == [("docs/architecture.md", "Target")]
    assert citations("docs/methods/steady-state.md's early stop") == [("docs/methods/steady-state.md", None)]
    assert len(all_citations()) > 50  # the code cites its docs; finding none means the scan broke


@pytest.mark.parametrize(("source", "path", "section"), all_citations())
def test_every_cited_docs_path_exists(source: str, path: str, section: str | None) -> None:
    target = ROOT / path
    assert target.exists(), f"{source} cites {path}, which does not exist"
    if section is not None:
        assert section.lower() in headings_and_terms(target), (
            f"{source} cites {path} \"{section}\", which is no heading or bold term of that page")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


@pytest.mark.parametrize("page", sorted(DOCS.glob("**/*.md")), ids=lambda p: str(p.relative_to(DOCS)))
def test_links_between_pages_resolve(page: Path) -> None:
    for link in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+://", link) or link.startswith("mailto:"):
            continue
        file_part, _, anchor = link.partition("#")
        target = (page.parent / file_part).resolve() if file_part else page
        assert target.exists(), f"{page.relative_to(ROOT)} links to {link}, which does not exist"
        if anchor:
            anchors = {slug(h) for h in re.findall(r"^#+\s*(.+)$", target.read_text(encoding="utf-8"), re.M)}
            assert anchor in anchors, f"{page.relative_to(ROOT)} links to {link}: no such heading"


# --- drive facts --------------------------------------------------------------------------------

SPEC_LINE = re.compile(r"seq R/W (\d+)/(\d+) MB/s, 4K R/W (\d+)/(\d+) IOPS")
# Enterprise datasheets rate full-span steady state, not the fresh peak: bench/fidelity.py
# checks those presets, the fresh-peak spec table does not.
STEADY_RATED = "Spec (steady state, QD32)"


def preset_spec(path: Path) -> tuple[int, int, int, int]:
    match = SPEC_LINE.search(path.read_text(encoding="utf-8"))
    assert match, f"{path.name}: no 'Spec (fresh drive, QD32): seq R/W .../... MB/s, 4K R/W .../... IOPS' line"
    seq_r, seq_w, rnd_r, rnd_w = (int(g) for g in match.groups())
    return seq_r, seq_w, rnd_r, rnd_w


@pytest.mark.parametrize("preset", sorted(PRESETS.glob("*.toml")), ids=lambda p: p.stem)
def test_drive_facts_agree_with_the_preset(preset: Path) -> None:
    seq_r, seq_w, rnd_r, rnd_w = preset_spec(preset)
    rows = [line for line in (DOCS / "drives.md").read_text(encoding="utf-8").splitlines()
            if f"| `{preset.stem}` |" in line]
    assert len(rows) == 1, f"docs/drives.md needs one drive row naming `{preset.stem}`"
    assert f"| {seq_r} / {seq_w} |" in rows[0], f"{preset.name}: sequential spec differs from docs/drives.md"
    assert f"{rnd_r // 1000}K / {rnd_w // 1000}K |" in rows[0], f"{preset.name}: 4K spec differs from docs/drives.md"
    if STEADY_RATED in preset.read_text(encoding="utf-8"):
        return
    spec_table = (PRESETS.parent / "tests" / "spec.txt").read_text(encoding="utf-8").split()
    assert " ".join(map(str, (preset.stem, seq_r, seq_w, rnd_r, rnd_w))) in " ".join(spec_table), (
        f"{preset.name}: crates/ssdsim/tests/spec.txt holds other spec figures")
