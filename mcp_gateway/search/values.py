"""Literal values inside a request: paths, URLs, e-mail addresses, quoted text, CSS selectors.

"Read ./test_project_root/src/main.py" asks for a file reader; the words of the path (test, project, root,
src) are what the tool will work on, and matching tools by them finds project managers and test runners.
So values are cut out of the query, their words weigh little, and their kind says something instead: a
path is about files, a URL about the web (and its host names a service: github, bilibili).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcp_gateway.search.lexicon import CONCEPT_PREFIX
from mcp_gateway.search.text import stem

HOST_NOISE = frozenset("www m api app mobile com net org io co cn uk de fr jp edu gov info dev ai me tv".split())
"""Host labels that name no service: the rest of a URL's host does."""
MAX_QUOTED_CHARS = 200
"""A longer "quotation" is more likely prose with stray quotes. By hand in b12d795."""
MIN_BLOB_CHARS = 32
"""An unbroken run of letters, digits and `+/=_-` this long is a hash or encoded data (a SHA-1 in hex is 40).
9d191f6."""
FILE_EXTENSIONS = frozenset(
    """
        py js ts tsx jsx java go rs rb php c h cpp cs swift kt md txt rst csv tsv json jsonl yaml yml toml ini cfg
        conf env xml html htm css scss sql sh bash ps1 bat log pdf doc docx xls xlsx ppt pptx odt png jpg jpeg gif
        svg webp bmp ico mp3 mp4 wav ogg flac mov avi mkv zip tar gz tgz bz2 7z rar whl ipynb parquet db sqlite
    """.split()
)


@dataclass(frozen=True)
class Value:
    """A literal the query carries for the tool to use (a path, a URL, a quoted string), not its intent."""

    text: str
    hint: str | None
    """The concept the value's kind implies: a URL is about the web, a path about files."""
    site_words: tuple[str, ...] = ()
    """A URL's host names its service (`github`): intent, not a value."""


_VALUE = re.compile(
    r"""
    (?P<url>\b(?:https?|ftp|file|s3|gs|wss?)://[^\s'"<>)\]]+ | \bwww\.[^\s'"<>)\]]+)
  | (?P<email>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<path>(?<![\w/])(?:~|\.{1,2})?/[\w.@~+-]+(?:/[\w.@~+-]*)* | \b[A-Za-z]:\\\S+
            | \b[\w.-]+(?:/[\w.@~+-]+)+ | \b[\w-]+\.(?:EXTENSIONS)\b)
  | (?P<quoted>(?<!\w)'[^'\n]{1,QUOTED}'(?!\w) | "[^"\n]{1,QUOTED}" | `[^`\n]{1,QUOTED}` | “[^”\n]{1,QUOTED}”)
  | (?P<selector>(?<![\w/.])[#.][A-Za-z_][\w-]*)
  | (?P<blob>\b[A-Za-z0-9+/=_-]{BLOB,})
    """.replace("EXTENSIONS", "|".join(sorted(FILE_EXTENSIONS)))
    .replace("QUOTED", str(MAX_QUOTED_CHARS))
    .replace("BLOB", str(MIN_BLOB_CHARS)),
    re.VERBOSE,
)
_HINTS = {"url": CONCEPT_PREFIX + "web", "email": CONCEPT_PREFIX + "email", "path": CONCEPT_PREFIX + "file"}


def split_values(text: str) -> tuple[str, list[Value]]:
    values: list[Value] = []

    def cut(match: re.Match[str]) -> str:
        values.append(_value(match.group(0), match.lastgroup or ""))
        return " "

    return _VALUE.sub(cut, text), values


def _value(text: str, kind: str) -> Value:
    if kind == "quoted":
        inner = _VALUE.fullmatch(text[1:-1].strip())
        if inner is not None and inner.lastgroup != "quoted":
            return _value(inner.group(0), inner.lastgroup or "")
    if kind == "url":
        host = re.sub(r"^[a-z0-9]+://", "", text.lower()).split("/", 1)[0].split(":", 1)[0]
        labels = tuple(
            stem(label) for label in host.split(".") if label and label not in HOST_NOISE and label.isalpha()
        )
        return Value(text, _HINTS[kind], labels)
    return Value(text, _HINTS.get(kind))


ARGUMENT_LEADS = frozenset("in at to from for near into".split())
"""Prepositions whose next word says where, when or for whom (`in Berlin`, `for Tokyo`, `to Paris`): an argument
of the tool, not which tool. Not `about` or `of`: what a request is about (news about elections) is what a tool
must be about too."""
DETERMINERS = frozenset("a an the my our your his her their its this that these those some".split())
_WORD_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|[.!?;:]")
_SENTENCE_MARK = frozenset(".!?;:")


def argument_words(text: str) -> frozenset[str]:
    """The stems of words that read as arguments when no tool knows them: a capitalized word inside a sentence (a
    name: Berlin) and the word a preposition of place or time introduces (`in berlin`)."""
    found: set[str] = set()
    previous = ""
    starting = True
    for token in _WORD_TOKEN.findall(text):
        if token in _SENTENCE_MARK:
            starting, previous = True, ""
            continue
        lower = token.lower()
        if (token[0].isupper() and not starting) or previous in ARGUMENT_LEADS:
            found.add(stem(lower))
        if lower not in DETERMINERS:
            previous = lower
        starting = False
    return frozenset(found)
