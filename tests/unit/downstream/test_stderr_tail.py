"""What a start failure quotes of a server's stderr: this run's last meaningful lines, bounded, masked as logged."""

from __future__ import annotations

from pathlib import Path

from mcp_gateway.downstream.stderr_log import StderrLog
from mcp_gateway.downstream.stderr_tail import (
    CUT_MARK,
    KEPT_LINES,
    MAX_LINE_CHARS,
    MAX_QUOTED_CHARS,
    MAX_QUOTED_LINES,
    SEPARATOR,
    StderrTail,
)
from mcp_gateway.masking import MASK, SecretMask

TOKEN = "xoxb-" + "7" * 30


def tail_of(text: str) -> tuple[str, ...]:
    tail = StderrTail()
    tail.extend(text.split("\n"))
    return tail.quoted()


def test_a_server_that_said_nothing_is_quoted_as_nothing() -> None:
    assert StderrTail().quoted() == ()
    assert tail_of("\n  \n\t\n") == ()


def test_the_last_lines_are_quoted_oldest_first_and_blank_lines_are_skipped() -> None:
    lines = [f"line {n}" for n in range(10)]
    assert tail_of("\n\n".join(lines)) == tuple(lines[-MAX_QUOTED_LINES:])


def test_the_quote_fits_its_character_bound_in_whole_lines() -> None:
    lines = [f"{n} " + "x" * 200 for n in range(4)]
    quoted = tail_of("\n".join(lines))
    assert quoted == tuple(lines[-2:]), "a third 202-character line would pass the bound"
    assert len(SEPARATOR.join(quoted)) <= MAX_QUOTED_CHARS


def test_a_line_too_long_to_quote_whole_is_cut_at_a_word_and_marked() -> None:
    long_line = " ".join(["word"] * 200)
    (quoted,) = tail_of(long_line)
    assert len(quoted) <= MAX_LINE_CHARS
    assert quoted.endswith("word" + CUT_MARK)


def test_two_lines_always_fit_however_long() -> None:
    quoted = tail_of(f"{'a' * 5000}\n{'b' * 5000}\n{'c' * 5000}")
    assert [line[0] for line in quoted] == ["b", "c"]
    assert len(SEPARATOR.join(quoted)) <= MAX_QUOTED_CHARS


def test_a_python_traceback_is_quoted_by_its_error_not_its_frames() -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/srv/server.py", line 40, in <module>\n'
        "    main()\n"
        '  File "/srv/server.py", line 12, in main\n'
        '    raise RuntimeError("missing API key")\n'
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "RuntimeError: missing API key\n"
    )
    assert tail_of(traceback) == ("RuntimeError: missing API key",)


def test_a_node_crash_is_quoted_without_its_stack_frames() -> None:
    crash = (
        "/srv/index.js:12\n"
        '    throw new Error("SLACK_BOT_TOKEN is not set");\n'
        "    ^\n"
        "\n"
        "Error: SLACK_BOT_TOKEN is not set\n"
        "    at Object.<anonymous> (/srv/index.js:12:11)\n"
        "    at Module._compile (node:internal/modules/cjs/loader:1554:14)\n"
        "\n"
        "Node.js v22.12.0\n"
    )
    assert tail_of(crash) == (
        "/srv/index.js:12",
        'throw new Error("SLACK_BOT_TOKEN is not set");',
        "Error: SLACK_BOT_TOKEN is not set",
        "Node.js v22.12.0",
    )


def test_an_error_followed_by_a_long_usage_text_is_still_quoted_from_the_error() -> None:
    text = "Warning: cannot read /x\nError: None of the specified directories are accessible\n" + "\n".join(
        f"usage line {n}" for n in range(8)
    )
    quoted = tail_of(text)
    assert quoted[0] == "Error: None of the specified directories are accessible"
    assert quoted[1:] == tuple(f"usage line {n}" for n in range(MAX_QUOTED_LINES - 1))


def test_only_the_newest_lines_are_remembered() -> None:
    tail = StderrTail()
    tail.extend(["Error: an early one", *(f"chatter {n}" for n in range(KEPT_LINES))])
    assert tail.quoted() == tuple(f"chatter {n}" for n in range(KEPT_LINES - MAX_QUOTED_LINES, KEPT_LINES))


def test_the_lines_come_masked_as_the_log_writes_them(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask([TOKEN]))
    tail = StderrTail()
    tail.extend(log.feed(f"invalid_auth for {TOKEN[:9]}"))
    tail.extend(log.feed(f"{TOKEN[9:]}\nbye"))
    tail.extend(log.flush())
    assert tail.quoted() == (f"invalid_auth for {MASK}", "bye")
    assert (tmp_path / "s.log").read_text().splitlines() == list(tail.quoted())
