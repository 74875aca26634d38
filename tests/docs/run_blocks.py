"""Child process of the guide test: runs code blocks, each in a fresh `__main__` module.

Usage: `python run_blocks.py BLOCKS.json RESULTS.json`. BLOCKS.json holds a list of
`{"where": ..., "source": ...}`; RESULTS.json receives, for each block, `{"where": ...,
"error": null}` or the traceback of what it raised. A block may `await` at top level (as
in `python -m asyncio` or a notebook); it then runs in `asyncio.run`.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import sys
import traceback
import types
from pathlib import Path
from typing import Any


def run_block(where: str, source: str) -> str | None:
    """Run one block in a fresh `__main__` module; the traceback it raised, if any."""
    module = types.ModuleType("__main__")
    previous = sys.modules["__main__"]
    sys.modules["__main__"] = module
    try:
        code = compile(
            source, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
        )
        result: Any = eval(code, module.__dict__)  # the guides' own code
        if inspect.iscoroutine(result):
            asyncio.run(result)
    except BaseException:  # a block that exits or is interrupted fails too
        return traceback.format_exc()
    finally:
        sys.modules["__main__"] = previous
        sys.stdout.flush()
    return None


def main(blocks_file: str, results_file: str) -> None:
    blocks: list[dict[str, str]] = json.loads(Path(blocks_file).read_text(encoding="utf-8"))
    results = [
        {"where": block["where"], "error": run_block(block["where"], block["source"])}
        for block in blocks
    ]
    Path(results_file).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
