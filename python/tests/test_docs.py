"""Every code block of docs/python.md runs, in order, in one namespace."""

import re

from conftest import ROOT


def test_every_python_block_of_the_page_runs():
    page = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert len(blocks) >= 8
    namespace = {}
    for k, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/python.md block {k + 1}", "exec"), namespace)
        except Exception as e:  # pragma: no cover - the message names the block
            raise AssertionError(f"docs/python.md block {k + 1} failed: {e!r}") from e
