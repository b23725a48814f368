"""The `ssdlab` script's entry (ssdlab/entry.py): a Ctrl-C while the command line still loads
ends in one line and exit 130, as one later does (QA: `timeout -s INT 0.3 ssdlab version` printed
a KeyboardInterrupt traceback from the imports)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

# The command line's import raises what a Ctrl-C during it raises, at a fixed point: a real
# signal's timing would depend on how fast this machine loads the imports.
CTRL_C_WHILE_LOADING = textwrap.dedent("""
    import builtins, sys
    real_import = builtins.__import__
    def importing(name, *args, **kwargs):
        if name == "ssdlab.cli" or name.startswith("ssdlab.cli."):
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)
    builtins.__import__ = importing
    sys.argv = ["ssdlab", "version"]
    from ssdlab.entry import main
    main()
""")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1] / "python"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                          stdin=subprocess.DEVNULL)


def test_a_ctrl_c_while_the_command_line_loads_is_one_line() -> None:
    done = run_python(CTRL_C_WHILE_LOADING)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "stopped: interrupted by the user\n"
    assert done.stdout == ""


def test_the_entry_runs_the_command_line() -> None:
    done = run_python("import sys; sys.argv = ['ssdlab', 'version']\nfrom ssdlab.entry import main\nmain()")
    assert done.returncode == 0 and done.stdout.startswith("ssdlab "), done.stderr


def test_the_script_and_python_m_use_the_entry() -> None:
    """The installed script and `python -m ssdlab` both go through entry.main (pyproject.toml)."""
    root = Path(__file__).parents[1]
    assert 'ssdlab = "ssdlab.entry:main"' in (root / "pyproject.toml").read_text(encoding="utf-8")
    assert "from ssdlab.entry import main" in (root / "python" / "ssdlab" / "__main__.py").read_text(encoding="utf-8")


def test_loading_the_entry_loads_nothing_heavy() -> None:
    """Between the interpreter's start and entry.main's guard only `ssdlab` and `ssdlab.entry` load:
    the package's version is looked up when asked for (it read the installed metadata at import)."""
    done = run_python("import sys\nfrom ssdlab.entry import main\n"
                      "print(sorted(m for m in sys.modules if m.startswith(('ssdlab', 'importlib.metadata'))))")
    assert done.stdout.strip() == "['ssdlab', 'ssdlab.entry']", done.stdout + done.stderr


def test_a_ctrl_c_the_command_line_lets_through_is_still_one_line() -> None:
    """QA: once in ~300 tries a Ctrl-C at ~0.7 s printed a traceback from inside typer's command
    set-up; whatever lets a KeyboardInterrupt out of the command line, the script ends in one line."""
    done = run_python(textwrap.dedent("""
        import sys
        import ssdlab.cli
        def interrupted():
            raise KeyboardInterrupt
        ssdlab.cli.main = interrupted
        from ssdlab.entry import main
        main()
    """))
    assert done.returncode == 130, done.stderr
    assert done.stderr == "stopped: interrupted by the user\n"
