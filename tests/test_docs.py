"""The docs name only what exists: every ``orma`` command and option in README.md and docs/*.md
is one the CLI has, every ``ORMA_*`` variable and setting is one OrmaConfig reads, every MCP
tool named is served and every tool served is in docs/mcp.md's table, and the JSON keys
docs/cli.md shows for a command are in what that command prints.

The docs are read simply: inline code spans, and the lines of fenced blocks (a block's
``$ ...`` lines when it mixes commands and their output)."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from orma_proxy import OrmaConfig
from orma_proxy.cli.app import app
from orma_proxy.config_load import ENV_PREFIX, OTHER_ENV
from orma_proxy.mcp.server import build_server

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"`([^`\n]+)`")
SHELL_BLOCKS = {"bash", "sh", "console", "shell", ""}
# Where one command of a line ends and the next begins (pipes, lists, a trailing comment).
SEPARATOR = re.compile(r"\s\|\|?\s|;\s|;$|\s&&\s|\s#.*$|\s/\s")
# Options of other programs the docs name: pip's, llama-server's, and the benches' (bench/).
OTHER_PROGRAMS = {"--no-deps", "--api-key", "--cases", "--scale"}
OPTION = re.compile(r"^\[?(--?[A-Za-z][\w-]*)")


def prose(text: str) -> str:
    return FENCE.sub("", text)


def code_lines(text: str) -> Iterator[str]:
    """Inline code spans, and the command lines of fenced shell blocks."""
    for language, body in FENCE.findall(text):
        if language not in SHELL_BLOCKS:
            continue
        lines = body.splitlines()
        session = any(line.startswith("$ ") for line in lines)
        for line in lines:
            if session and not line.startswith("$ "):
                continue
            yield line.removeprefix("$ ")
    yield from SPAN.findall(prose(text))


def invocations(line: str) -> Iterator[tuple[str | None, list[str]]]:
    """``(command, options)`` for each ``orma ...`` in a line; command None for ``orma --x``."""
    for segment in SEPARATOR.split(line):
        try:
            tokens = shlex.split(segment)
        except ValueError:  # an unclosed quote in a fragment: words are enough here
            tokens = segment.split()
        for i, token in enumerate(tokens):
            if token != "orma":
                continue
            rest = tokens[i + 1 :]
            if "orma" in rest:
                rest = rest[: rest.index("orma")]
            command = rest[0] if rest and re.fullmatch(r"[a-z][a-z-]*", rest[0]) else None
            args = rest[1:] if command else rest
            options = [m.group(1) for arg in args if (m := OPTION.match(arg.split("=")[0]))]
            yield command, options


def cli_options() -> dict[str, set[str]]:
    """Each command's options (and the root's under ""), read from the click objects."""
    root = typer.main.get_command(app)

    def names(command: Any) -> set[str]:
        return {o for p in command.params for o in (*p.opts, *p.secondary_opts) if o[0] == "-"}

    options = {"": names(root) | {"--help", "-h"}}
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        options[name] = names(command) | {"--help", "-h"}
    return options


def doc_texts() -> Iterator[tuple[str, str]]:
    for path in DOCS:
        yield path.relative_to(ROOT).as_posix(), path.read_text("utf-8")


def test_every_command_and_option_named_exists() -> None:
    options = cli_options()
    every_option = set().union(*options.values())
    wrong: list[str] = []
    seen = 0
    for name, text in doc_texts():
        for line in code_lines(text):
            for command, used in invocations(line):
                seen += 1
                if command is not None and command not in options:
                    wrong.append(f"{name}: `orma {command}` is no command ({line!r})")
                    continue
                known = options[command or ""] | options[""]
                wrong += [
                    f"{name}: `orma {command or ''}` has no option {o} ({line!r})"
                    for o in used
                    if o not in known
                ]
        # An option in a span of its own (`--speaker NAME`) is one of some command's.
        for span in SPAN.findall(prose(text)):
            bare = re.match(r"(--[a-z][\w-]*|-[a-zA-Z])(?=[\s=]|$)", span)
            if bare and bare.group(1) not in every_option | OTHER_PROGRAMS:
                wrong.append(f"{name}: no command has the option {bare.group(1)} ({span!r})")
    assert seen > 50  # the parser still finds the docs' commands
    assert not wrong, "\n".join(wrong)


def settings_named(text: str) -> Iterator[str]:
    """``ORMA_X`` variables, and ``key = value`` settings in TOML blocks and code spans."""
    yield from re.findall(rf"\b{ENV_PREFIX}[A-Z0-9_]+\b", text)
    for language, body in FENCE.findall(text):
        if language == "toml":
            yield from re.findall(r"^(\w+)\s*=", body, re.MULTILINE)
    for span in SPAN.findall(prose(text)):
        if m := re.fullmatch(r"([a-z]\w*_\w+) = .+", span):
            yield m.group(1)


def test_every_setting_and_variable_named_exists() -> None:
    fields = set(OrmaConfig.model_fields)
    wrong: list[str] = []
    named: set[str] = set()
    for name, text in doc_texts():
        for setting in settings_named(text):
            named.add(setting)
            if setting.startswith(ENV_PREFIX):
                known = setting in OTHER_ENV or setting.removeprefix(ENV_PREFIX).lower() in fields
            else:
                known = setting in fields
            wrong += [] if known else [f"{name}: {setting} is no setting"]
    assert len(named) > 10
    assert not wrong, "\n".join(wrong)


def test_configuration_md_names_settings_only_and_defines_each_once() -> None:
    """Each snake_case name in docs/configuration.md is a setting, described in one place
    (``multi_valued_attributes`` was twice, with two lists)."""
    text = prose((ROOT / "docs" / "configuration.md").read_text("utf-8"))
    fields = set(OrmaConfig.model_fields)
    names = {s for s in SPAN.findall(text) if re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", s)}
    assert len(names & fields) > 30 and not names - fields, names - fields
    starts = re.findall(r"^`(\w+)` (?:names|lists|is|sets)\b", text, re.MULTILINE)
    assert starts
    repeated = {s for s in starts if s in fields and starts.count(s) > 1}
    assert not repeated


def served_tools(tmp_path: Path) -> dict[str, set[str]]:
    """Each tool the MCP server lists, with its arguments."""
    server = build_server(OrmaConfig(home=tmp_path))
    listed = asyncio.run(server.list_tools())
    return {tool.name: set(tool.input_schema["properties"]) for tool in listed}


def test_every_mcp_tool_named_is_served_and_every_tool_is_in_the_table(tmp_path: Path) -> None:
    tools = served_tools(tmp_path)
    assert len(tools) >= 8
    sql = " ".join(p.read_text("utf-8") for p in (ROOT / "migrations").rglob("*.sql"))
    wrong = []
    for name, text in doc_texts():
        for tool in re.findall(r"(?<![/\w])orma_[a-z_]+\b", text):
            if tool != "orma_proxy" and tool not in tools and f"FUNCTION {tool}(" not in sql:
                wrong.append(f"{name}: {tool} is no MCP tool")
    assert not wrong, "\n".join(wrong)
    mcp_md = (ROOT / "docs" / "mcp.md").read_text("utf-8")
    table = dict(re.findall(r"^\| `(orma_\w+)\(([^)]*)\)`", mcp_md, re.MULTILINE))
    assert sorted(table) == sorted(tools)
    for tool, arguments in table.items():  # the row names the tool's arguments, all of them
        assert {a.split("=")[0].strip() for a in arguments.split(",")} == tools[tool], tool


def json_examples(text: str) -> Iterator[tuple[list[str], list[str], bool]]:
    """``(args, keys, first)`` for each ``$ orma ... --json`` of a session block and the keys it
    shows (``first``: shown by ``| head``, so they are the output's first keys, in order), and
    for each key docs/cli.md's prose says a command's ``--json`` holds."""
    for _, body in FENCE.findall(text):
        for command, output in re.findall(r"^\$ orma (.+?)\n(.*?)(?=^\$ |\Z)", body, re.M | re.S):
            if "--json" in command:
                args = shlex.split(SEPARATOR.split(command)[0])
                keys = re.findall(r'^\s*"(\w+)":', output, re.MULTILINE)
                yield args, keys, "| head" in command
    for paragraph in prose(text).split("\n\n"):
        commands = re.findall(r"`orma ([a-z]+)", paragraph)
        keys = re.findall(r"`(\w+)` in `--json`", paragraph)
        keys += re.findall(r"`--json`[^`.]*(?:with|beside|has) `(\w+)`", paragraph)
        keys += re.findall(r"in `--json`, beside `(\w+)`", paragraph)
        if keys and commands:
            yield [commands[-1], "--json"], keys, False


def all_keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in all_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in all_keys(v)}
    return set()


@pytest.fixture
def demo_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORMA_DIR", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    db = tmp_path / "demo.db"
    notes = [
        "Ravi: My dentist is Dr. Rao in Kothrud.",
        "I work as a backend engineer and I live in Pune.",
        "The weather was grey and the train was late.",
    ]
    result = CliRunner().invoke(app, ["add", *notes, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return db


def test_the_json_keys_cli_md_shows_are_printed(demo_db: Path) -> None:
    examples = list(json_examples((ROOT / "docs" / "cli.md").read_text("utf-8")))
    commands = {args[0] for args, _, _ in examples}
    assert {"config", "search"} <= commands  # the examples the parser must keep finding
    runner = CliRunner()
    for args, keys, first in examples:
        if args[0] == "search" and not any(not a.startswith("-") for a in args[1:]):
            args = [*args, "dentist", "--all"]  # prose names the command, not its query
        result = runner.invoke(app, [*args, "--db", str(demo_db)])
        assert result.exit_code == 0, (args, result.output)
        value = json.loads(result.stdout)
        assert keys and set(keys) <= all_keys(value), (args, set(keys) - all_keys(value))
        if first:
            assert list(value)[: len(keys)] == keys, args
