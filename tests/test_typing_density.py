"""`Any` stays rare in the library outside the modules that map wire JSON."""

import io
import tokenize
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent / "src" / "agentry"

# The JSON boundary: modules whose job is to translate JSON from a wire or a store into
# typed objects (or back), where values arrive untyped by nature. Everywhere else a value
# has a known type, `JsonValue`, `object` (opaque, only passed on), a TypeVar or a Protocol.
JSON_BOUNDARY = (
    # Provider request/response mapping: the SDKs' loosely typed payloads in and out.
    "openai/_chat_completion.py",
    "openai/_responses.py",
    "clients/wire_format.py",
    # A2A parts and MCP call results: protocol payloads decoded into `Content`.
    "a2a/_parts.py",
    "mcp/_results.py",
    # JSON Schema validation of model-written arguments against a tool's schema.
    "types/_validation.py",
    # Checkpoint encoding: arbitrary user values to and from stored JSON.
    "workflows/_encoding.py",
    # Durable records: a handler call's effects as the plain JSON the engine stores, and
    # the engine's JSON-only serializer.
    "durable/_recording.py",
    "durable/_serializer.py",
    # Recorded provider exchanges replayed from JSON files.
    "testing/",
)

LIMIT_PER_THOUSAND_LINES = 25


def _in_boundary(relative: str) -> bool:
    return any(
        relative.startswith(entry) if entry.endswith("/") else relative == entry
        for entry in JSON_BOUNDARY
    )


def _any_names(source: str) -> int:
    """Counts `Any` used as a name in code (not in comments or strings)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return sum(1 for token in tokens if token.type == tokenize.NAME and token.string == "Any")


def _density_outside_boundary() -> tuple[int, int]:
    anys = 0
    lines = 0
    for path in sorted(SOURCE_ROOT.rglob("*.py")):
        relative = path.relative_to(SOURCE_ROOT).as_posix()
        if _in_boundary(relative):
            continue
        source = path.read_text(encoding="utf-8")
        anys += _any_names(source)
        lines += len(source.splitlines())
    return anys, lines


def test_every_boundary_entry_names_an_existing_module() -> None:
    for entry in JSON_BOUNDARY:
        assert (SOURCE_ROOT / entry).exists(), entry


def test_any_is_below_25_per_thousand_lines_outside_the_json_boundary() -> None:
    anys, lines = _density_outside_boundary()
    density = 1000 * anys / lines
    print(f"Any outside the JSON boundary: {anys} in {lines} lines = {density:.1f} per 1,000")
    assert density < LIMIT_PER_THOUSAND_LINES
