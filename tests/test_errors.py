"""How errors are worded (errors.py): json's messages, each shape, read as one sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ssdlab.bundle import read_json
from ssdlab.errors import BundleError, json_error_text

# One text for each message shape json gives (the place it names follows some: "... at").
BAD_JSON = {
    '{"a": "unterminated': "Unterminated string starting at line 1 column 7",
    '{"a": "x\ty"}': "Invalid control character at line 1 column 9",
    '{"a": }': "Expecting value at line 1 column 7",
    '{"a" 1}': "Expecting ':' delimiter at line 1 column 6",
    '{"a": 1 "b": 2}': "Expecting ',' delimiter at line 1 column 9",
    '{a: 1}': "Expecting property name enclosed in double quotes at line 1 column 2",
    '{"a": "\\q"}': "Invalid \\escape",
    '{"a": "\\u12"}': "Invalid \\uXXXX escape",
    '{} {}': "Extra data at line 1 column 4",
    '\n\n{"a": "cut': "Unterminated string starting at line 3 column 7",
}


@pytest.mark.parametrize("text", BAD_JSON)
def test_every_json_error_reads_as_one_sentence(text: str) -> None:
    """QA: "Unterminated string starting at at line 71": json's message already ends in "at"."""
    with pytest.raises(json.JSONDecodeError) as error:
        json.loads(text)
    worded = json_error_text(error.value)
    assert BAD_JSON[text] in worded, worded
    assert " at at " not in worded and not worded.endswith(" at")
    assert re.search(r"\bat line \d+ column \d+$", worded), worded


def test_a_bundle_file_cut_short_says_where_once(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text('{\n  "schema_version": 1,\n  "name": "cut')
    with pytest.raises(BundleError) as error:
        read_json(path, "is not a run record", "fix it")
    assert "(not JSON: Unterminated string starting at line 3 column 11)" in str(error.value), str(error.value)
