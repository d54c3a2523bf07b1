"""``orma facts``, ``recall``, ``forbid``, ``forget``, ``sleep``, ``stats`` and ``config``.

Real databases; sleep runs against a port nothing listens on, so the
rule-based extractor makes the states.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from orma_proxy.cli.mcp_cmds import orma_program
from tests.helpers.cli import Orma
from tests.helpers.serving import free_port

RULE = "Never chain PowerShell commands with semicolons."
NOTES = ["My dentist is Dr. Rao in Kothrud.", "I live in Pune."]


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables one line per row, as on a wide terminal."""
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def upstream() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"


def _ok(orma: Orma, *args: str | Path) -> str:
    result = orma(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _slept(orma: Orma, db: Path, upstream: str) -> None:
    """Notes and a rule stored, then consolidated by rules; Pune superseded by Bangalore."""
    _ok(orma, "add", *NOTES, "--db", db)
    _ok(orma, "forbid", RULE, "--db", db)
    _ok(orma, "sleep", "--db", db, "-u", upstream)
    _ok(orma, "add", "I moved to Bangalore.", "--db", db)
    _ok(orma, "sleep", "--db", db, "-u", upstream)


def test_forbid_is_a_state_at_once_and_recall_puts_it_first(orma: Orma, db: Path) -> None:
    _ok(orma, "add", *NOTES, "--db", db)  # states #1 and #2, drawn as the notes were stored
    assert _ok(orma, "forbid", RULE, "--db", db) == (
        "State #3: [FORBIDDEN: chain PowerShell commands with semicolons]\n"
    )
    again = json.loads(_ok(orma, "forbid", RULE.upper(), "--db", db, "--json"))
    assert (again["id"], again["prohibited"], again["rehearsals"]) == (3, True, 2)
    assert again["attribute"] == "forbidden_chain_powershell_commands"

    block = _ok(orma, "recall", "Who is my dentist?", "--db", db)
    lines = block.splitlines()
    assert lines[0].startswith("## Memory (today ")
    assert lines[1].endswith("Never suggest, mention or do anything marked [FORBIDDEN].")
    assert lines[3] == "[FORBIDDEN: chain PowerShell commands with semicolons]"
    assert "[user.dentist: Dr. Rao in Kothrud]" in lines[4:]
    assert not any(RULE in line for line in lines)  # its own line would only repeat it

    found = json.loads(_ok(orma, "recall", "dentist", "--db", db, "--json"))
    assert found["forbidden"] == ["chain PowerShell commands with semicolons"]
    assert found["text"] == _ok(orma, "recall", "dentist", "--db", db).rstrip("\n")
    assert 0 < found["tokens"] <= 4096


def test_recall_shows_what_a_note_says_beyond_the_fact_drawn_from_it(orma: Orma, db: Path) -> None:
    """Issue 27: the violin is in the block beside the brother's name, not folded into it."""
    note = "My brother Kabir plays the violin in the Pune symphony orchestra."
    _ok(orma, "add", note, "--db", db)
    facts = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    assert [f["text"] for f in facts] == ["user · brother: Kabir"]  # drawn as it was stored
    lines = _ok(orma, "recall", "What instrument does my brother play?", "--db", db).splitlines()
    assert "[user.brother: Kabir]" in lines
    assert any(line.startswith("[LOG: ") and line.endswith(f" note: {note}]") for line in lines)


def test_recall_with_nothing_to_inject_says_so_on_stderr(orma: Orma, db: Path) -> None:
    _ok(orma, "add", "Alice likes green tea.", "--space", "alice", "--db", db)
    result = orma("recall", "tea", "--space", "bob", "--db", db)
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.endswith("Nothing in space 'bob' would be injected for 'tea'.\n")


def test_facts_after_sleep_with_and_without_history(orma: Orma, db: Path, upstream: str) -> None:
    _slept(orma, db, upstream)
    active = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    assert sorted(f["text"] for f in active) == [
        "user · dentist: Dr. Rao in Kothrud",
        "user · forbidden chain powershell commands: chain PowerShell commands with semicolons",
        "user · home city: Bangalore",
    ]
    history = json.loads(_ok(orma, "facts", "--history", "--db", db, "--json"))["facts"]
    pune = next(f for f in history if f["value"] == "Pune")
    assert (pune["active"], pune["replaced_by"], pune["end_reason"]) == (
        False,
        "Bangalore",
        "superseded",
    )
    assert pune["valid_to"] is not None

    table = _ok(orma, "facts", "--history", "--db", db).splitlines()
    assert "[FORBIDDEN: chain PowerShell commands with semicolons]" in table[3]  # rules first
    assert any(
        "user · home city: Pune" in row and "superseded by Bangalore" in row for row in table
    )
    assert "user · home city: Pune" not in _ok(orma, "facts", "--db", db)

    recalled = json.loads(_ok(orma, "recall", "who is my dentist?", "--db", db, "--json"))
    dentist = next(s for s in recalled["states"] if s["attribute"] == "dentist")
    assert (
        dentist["value"] == "Dr. Rao in Kothrud"
        and "[user.dentist: Dr. Rao in Kothrud]" in (recalled["text"])
    )
    assert recalled["events"] == [] and recalled["forbidden"]


def test_forget_closes_a_state_and_keeps_it_in_history(orma: Orma, db: Path, upstream: str) -> None:
    _slept(orma, db, upstream)
    facts = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    dentist = next(f for f in facts if f["attribute"] == "dentist")
    said = _ok(orma, "forget", str(dentist["id"]), "--db", db)
    assert said == (
        f"Forgot state #{dentist['id']} (user · dentist: Dr. Rao in Kothrud); "
        "`orma facts --history` keeps it.\n"
    )
    now = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    assert dentist["id"] not in [f["id"] for f in now]
    kept = json.loads(_ok(orma, "facts", "--history", "--db", db, "--json"))["facts"]
    closed = next(f for f in kept if f["id"] == dentist["id"])
    assert (closed["active"], closed["end_reason"]) == (False, "forgotten")

    again = orma("forget", str(dentist["id"]), "--db", db)
    assert again.exit_code == 2
    assert again.stderr == (
        f"error: state #{dentist['id']} is already closed (it stays in the history)\n"
    )
    elsewhere = orma("forget", str(dentist["id"]), "--space", "work", "--db", db)
    assert elsewhere.exit_code == 2
    assert elsewhere.stderr == f"error: no state #{dentist['id']} in space 'work'\n"
    unknown = orma("forget", "4242", "--db", db)
    assert (unknown.exit_code, unknown.stderr) == (2, "error: no state #4242 in space 'default'\n")
    not_a_number = orma("forget", "twelve", "--db", db)
    assert not_a_number.exit_code == 2 and "Traceback" not in not_a_number.stderr


def test_forget_of_an_erased_state_says_it_no_longer_exists(orma: Orma, db: Path) -> None:
    _ok(orma, "add", *NOTES, "--db", db)  # both drawn as they are stored
    facts = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    home = next(f["id"] for f in facts if f["attribute"] == "home_city")
    assert home == max(f["id"] for f in facts)  # the highest: SQLite's max + 1 would reuse it
    _ok(orma, "purge", "Pune", "--yes", "--db", db)
    gone = orma("forget", str(home), "--db", db)
    assert (gone.exit_code, gone.stderr) == (
        2,
        f"error: state #{home} no longer exists in space 'default': a purge erased it "
        "(ids are never reused; `orma facts` lists the current ones)\n",
    )
    _ok(orma, "add", "I work at Zerodha.", "--db", db)
    newest = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    assert max(f["id"] for f in newest) > home  # the erased id is not handed out again


def test_an_empty_rule_is_refused_before_any_database_exists(orma: Orma, db: Path) -> None:
    result = orma("forbid", "  ", "--db", db)
    assert (result.exit_code, result.stderr) == (2, "error: nothing to forbid: the rule is empty\n")
    assert not db.exists()


def test_facts_of_an_empty_space_and_a_missing_database(orma: Orma, db: Path) -> None:
    missing = orma("facts", "--db", db)
    assert missing.exit_code == 1
    assert missing.stderr.startswith("error: no memory at ")
    _ok(orma, "add", "Just a note.", "--db", db)
    assert _ok(orma, "facts", "--db", db) == (
        "No facts in space 'default' yet: `orma sleep` makes them, `orma forbid` adds rules.\n"
    )


def test_sleep_reports_json_and_redo(orma: Orma, db: Path, upstream: str) -> None:
    _ok(orma, "add", *NOTES, "--db", db)
    report = json.loads(_ok(orma, "sleep", "--db", db, "-u", upstream, "--json"))
    # Both states were drawn as the notes were stored: sleep reads them again, adds none.
    assert (report["batches"], report["episodes"], report["states_added"]) == (1, 2, 0)
    assert report["extractors"] == ["rules"]
    assert report["pending_episodes"] == 0
    assert any("LLM not used" in line for line in report["skipped"])
    nothing = json.loads(_ok(orma, "sleep", "--db", db, "-u", upstream, "--json"))
    assert nothing["batches"] == 0
    _ok(orma, "forbid", "Avoid global mutable state.", "--db", db)
    seen = {
        f["text"]: f["id"] for f in json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    }
    redo = json.loads(_ok(orma, "sleep", "--redo", "--db", db, "-u", upstream, "--json"))
    assert (redo["batches"], redo["episodes"], redo["states_added"]) == (1, 3, 2)
    facts = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    assert {f["text"]: f["id"] for f in facts} == seen  # the ids a user saw still name them
    rules = [f["value"] for f in facts if f["prohibited"]]
    assert rules == ["global mutable state"]  # a rule set by hand survives the rebuild
    human = orma("sleep", "--space", "default", "--db", db, "-u", upstream)
    assert human.stdout.startswith("sleep: 0 batches")
    assert "LLM not used" in human.stdout and human.stderr == ""  # said once, on stdout


def test_stats_counts_states_events_and_pending_sleep(orma: Orma, db: Path, upstream: str) -> None:
    _slept(orma, db, upstream)
    _ok(orma, "add", "One more note, not consolidated yet.", "--db", db)
    found = json.loads(_ok(orma, "stats", "--db", db, "--json"))
    assert (found["states_active"], found["states_closed"]) == (3, 1)
    assert (found["events"], found["pending_sleep"], found["episodes"]) == (0, 1, 5)
    human = _ok(orma, "stats", "--db", db)
    assert "3 active, 1 closed" in human
    assert "1 episodes" in human


def test_config_shows_every_setting_and_hides_secrets(orma: Orma, db: Path) -> None:
    values = json.loads(_ok(orma, "config", "--db", db, "--json"))
    assert values["db_path"] == str(db)
    assert values["budget_tokens"] == 4096
    assert values["api_keys"] is None and values["upstream_api_key"] is None
    table = _ok(orma, "config")
    assert "budget_tokens" in table and "Most tokens the memory block may use." in table
    assert not db.exists()  # config never opens memory


def test_help_lists_every_command(orma: Orma) -> None:
    listed = _ok(orma, "--help")
    for command in ("facts", "recall", "forbid", "forget", "sleep", "config", "mcp"):
        assert f" {command} " in listed


def test_mcp_print_config_for_each_client(orma: Orma, db: Path) -> None:
    program = orma_program(sys.argv[0])  # a client's PATH seldom holds the venv: a full path
    assert Path(program[0]).is_absolute() and Path(program[0]).is_file()
    expected = shlex.join(["claude", "mcp", "add", "orma", "--", *program, "mcp"]) + "\n"
    assert _ok(orma, "mcp", "--print-config", "claude-code") == expected
    for client in ("cursor", "windsurf", "generic"):
        result = orma("mcp", "--print-config", client, "--db", db, "--space", "work")
        assert result.exit_code == 0
        args = [*program[1:], "mcp", "--db", str(db), "--space", "work"]
        assert json.loads(result.stdout) == {
            "mcpServers": {"orma": {"command": program[0], "args": args}}
        }
        assert result.stderr.strip()  # where the snippet goes
    bad = orma("mcp", "--print-config", "vim")
    assert bad.exit_code == 2 and "claude-code" in bad.stderr


def test_the_mcp_command_is_the_orma_that_ran_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "venv" / "bin" / "orma"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(script.parent)
    assert orma_program("./orma") == [str(script)]  # as typed, made absolute
    monkeypatch.setenv("PATH", str(script.parent))
    assert orma_program("/usr/lib/python3/site-packages/orma_proxy/cli/__main__.py") == [
        str(script)
    ]
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert orma_program("-c") == [sys.executable, "-m", "orma_proxy.cli"]
