"""Every docstring example runs as a doctest: each module of the distribution that holds
examples (``>>>`` lines) must pass them all, and every one of them must run (an example that
doctest cannot find, say in a comment, fails here)."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest

from tests.test_layout import MODULES

EXAMPLE = re.compile(r"^\s*>>> ", re.M)
WITH_EXAMPLES = {
    name: len(EXAMPLE.findall(path.read_text(encoding="utf-8")))
    for name, path in MODULES.items()
    if EXAMPLE.search(path.read_text(encoding="utf-8"))
}


def test_examples_are_found():
    """The discovery itself can fail: the modules known to hold examples are among them."""
    assert {"puzzlegym.env.core", "puzzlegym.env.loop", "puzzlegym.record.outcome"} <= set(
        WITH_EXAMPLES
    )


@pytest.mark.parametrize("name", sorted(WITH_EXAMPLES))
def test_docstring_examples_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
    )
    assert result.failed == 0, (
        f"{name}: {result.failed} of {result.attempted} examples failed (output above)"
    )
    assert result.attempted == WITH_EXAMPLES[name], (
        f"{name}: doctest ran {result.attempted} examples of the {WITH_EXAMPLES[name]} "
        "'>>>' lines in the file"
    )
