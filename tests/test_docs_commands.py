"""README.md and docs/ say what the code does, where a script can check it: every `ssdlab …`
command they print names commands, options, tests, suites, presets and parameters this ssdlab
has; the simulator's override table names every override the simulator takes; the
architecture's CLI paragraph names every command module; and the modules said to be the only
users of the Rust extension are all of them (a reader copying a command, or looking for the code
of a command group, met a name that was not there)."""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import typer

from ssdlab.cli import app
from ssdlab.methods import CATALOG_SUITES, REGISTRY, VARIANTS
from ssdlab.targets.sim import preset_names

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
PACKAGE = ROOT / "python" / "ssdlab"
START = r"(?:sudo\s+)?(?:\.venv/bin/)?ssdlab\s+"
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE_LINE = re.compile(rf"^(?:    |\t)\s*{START}([a-z][^#\n]*)", re.M)
INLINE = re.compile(rf"`{START}([a-z][^`]*)`")


def doc_commands() -> list[tuple[str, str]]:
    """(page:line, the words after `ssdlab`) of every command a page prints: a line of a code
    block, or a `code` span in the text (which may run over a line end)."""
    found: list[tuple[str, str]] = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        name = str(page.relative_to(ROOT))
        fenced = [(m.start(), m.group()) for m in FENCE.finditer(text)]
        for start, block in fenced:
            for line in block.splitlines():
                if match := re.match(rf"\s*{START}([a-z][^#]*)", line):
                    found.append((f"{name}:{text.count(chr(10), 0, start) + 1}", match.group(1).strip()))
        prose = FENCE.sub(lambda m: "\n" * m.group().count("\n"), text)
        for match in (*CODE_LINE.finditer(prose), *INLINE.finditer(prose)):
            line = prose.count("\n", 0, match.start()) + 1
            found.append((f"{name}:{line}", " ".join(match.group(1).split())))
    return found


def words(text: str) -> list[str]:
    """The command's words, placeholders (…, [--opt] brackets, a|b choices) made plain."""
    text = text.replace("…", " ").replace("...", " ").replace("[", " ").replace("]", " ")
    try:
        parts = shlex.split(text)
    except ValueError:  # a quote the sentence closes on the next line
        parts = text.replace("'", " ").replace('"', " ").split()
    return [part.split("|")[0] for part in parts if part]


def options_of(command: click.Command) -> set[str]:
    return {name for param in command.params for name in (*param.opts, *param.secondary_opts)}


@functools.cache
def root_command() -> click.Command:
    return typer.main.get_command(app)


def check(text: str) -> Iterator[str]:
    """What in one command this ssdlab does not have."""
    command = root_command()
    parts = words(text)
    while isinstance(command, click.Group) and parts and not parts[0].startswith("-"):
        sub = command.get_command(click.Context(command), parts[0])
        if sub is None:
            if re.fullmatch(r"[a-z][a-z-]*", parts[0]):  # a word of the sentence, not a command
                yield f"no command {parts[0]!r}"
            return
        command, parts = sub, parts[1:]
    if isinstance(command, click.Group):
        return
    known = options_of(command) | {"--help", "-h"}
    values = iter(parts)
    for part in values:
        if part == "--":
            return
        if not part.startswith("-") or part in {"-", "-o-"}:
            continue
        name, _, inline = part.partition("=")
        if name not in known:
            yield f"no option {name} of `{command.name}`"
            continue
        value = inline or next(values, "")
        yield from check_value(name, value)


def check_value(option: str, value: str) -> Iterator[str]:
    if not re.fullmatch(r"[a-z0-9][a-z0-9.:_-]*(=.*)?|sim:.*", value):  # a placeholder: NAME, TARGET
        return
    if option == "--test" and value not in REGISTRY and value not in VARIANTS:
        yield f"no test {value!r}"
    elif option in ("--suite", "-s") and value not in CATALOG_SUITES:
        yield f"no suite {value!r}"
    elif option in ("--param", "-p"):
        key = value.partition("=")[0].rpartition(".")[2]
        if not any(key in test.params_model.model_fields for test in REGISTRY.values()):
            yield f"no test has a parameter {key!r}"
    elif (option in ("--target", "-t") and (preset := re.match(r"sim:([a-z0-9-]+)(?=$|\?)", value))
          and preset.group(1) not in preset_names()):
        yield f"no simulator preset {preset.group(1)!r}"


def test_commands_are_found() -> None:
    commands = dict(doc_commands())
    assert len(commands) > 100  # the pages print many commands; finding few means the scan broke
    assert "ssdlab run --suite traces -t sim:" in {f"ssdlab {c}" for c in commands.values()}


@pytest.mark.parametrize("text", [
    "sim cache --purge", "run --test wsat --fio-ss -t sim:", "run --test consistancy -t sim:",
    "run --suite fast -t sim:", "run --test wsat -p warmup_s=1 -t sim:", "run -t sim:950pro-1024",
    "trace replay x.parquet --remap-mode modulo", "library prune",
])
def test_a_name_this_ssdlab_lacks_is_found(text: str) -> None:
    assert list(check(text))


@pytest.mark.parametrize(("where", "text"), doc_commands(), ids=lambda v: v if ".md:" in v else "")
def test_each_printed_command_names_what_ssdlab_has(where: str, text: str) -> None:
    assert not list(check(text)), f"{where}: `ssdlab {text}`: {', '.join(check(text))}"


# --- the simulator's overrides --------------------------------------------------------------


def simulator_special_keys() -> list[str]:
    source = (ROOT / "crates" / "ssdsim" / "src" / "config.rs").read_text(encoding="utf-8")
    block = re.search(r"pub const SPECIAL_KEYS: &\[&str\] = &\[(.*?)\];", source, re.S)
    assert block, "crates/ssdsim/src/config.rs: no SPECIAL_KEYS list"
    return re.findall(r'"(\w+)"', block.group(1))


def test_the_override_table_names_every_override() -> None:
    text = (ROOT / "docs" / "simulator.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(\w+)` \|", text, re.M))
    keys = simulator_special_keys()
    assert "op" in keys and "heatsink" in keys
    missing = [key for key in [*keys, "seed"] if key not in rows]
    assert not missing, f"docs/simulator.md's override table lacks {missing}"


# --- where the code is ------------------------------------------------------------------------


def test_the_cli_paragraph_names_every_command_module() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    paragraph = text[text.index("**CLI** (`cli/`)"):].split("\n\n")[0]
    registering = sorted(p.name for p in (PACKAGE / "cli").glob("*.py")
                         if re.search(r"^@\w+\.command\(", p.read_text(encoding="utf-8"), re.M)
                         and p.name != "__init__.py")
    assert "run.py" in registering
    missing = [name for name in registering if f"`{name}`" not in paragraph]
    assert not missing, f"docs/architecture.md's CLI paragraph does not name {missing}"


def test_every_python_user_of_the_extension_is_named() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("## The Rust core"):]
    users = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.glob("**/*.py")
                   if re.search(r"from ssdlab import _ssdsim|import ssdlab\._ssdsim", p.read_text(encoding="utf-8")))
    assert "engines/sim.py" in users
    missing = [path for path in users if f"`{path}`" not in section]
    assert not missing, (f"docs/architecture.md, \"The Rust core\", does not name {missing} "
                         "among the extension's Python users")


# --- paths ----------------------------------------------------------------------------------------

REPO_PATH = re.compile(r"`((?:python|crates|tests|bench|docs)/[\w./*<>-]*\w)`")


def named_paths() -> list[tuple[str, str]]:
    return [(f"{page.relative_to(ROOT)}", match.group(1)) for page in PAGES
            for match in REPO_PATH.finditer(page.read_text(encoding="utf-8"))]


def test_paths_are_found() -> None:
    assert ("docs/traces.md", "python/ssdlab/trace/model.py") in named_paths()


@pytest.mark.parametrize(("page", "path"), named_paths())
def test_each_named_path_exists(page: str, path: str) -> None:
    """A path from the repository's root exists there. The simulator's pages call its Rust tests
    `tests/NAME.rs` (crates/ssdsim/tests/), which no other folder holds; any other `tests/` path
    is the Python suite's, so a simulator file named so (its `spec.txt`) sent a reader there."""
    if re.fullmatch(r"tests/\w+\.rs", path):
        assert (ROOT / "crates" / "ssdsim" / path).exists(), f"{page} names {path}: no such crate test"
        return
    pattern = re.sub(r"<[^>]*>", "*", path)
    assert list(ROOT.glob(pattern)) or (ROOT / pattern).exists(), f"{page} names {path}, which does not exist"
