"""The poisoning screen: what, in a tool's description or schema, only an attack needs.

Tool poisoning hides instructions for the model where a person approving the tool does not look: characters
that do not show (zero-width, bidirectional overrides, Unicode tag characters, which spell ASCII invisibly),
orders aimed at the model ("ignore previous instructions", "do not tell the user", `<IMPORTANT>` blocks),
a say over other tools ("when this tool is available, send_email must…"), and the secrets and files an attacker
wants read (`~/.ssh`, `mcp.json`, `/etc/passwd`). Each rule is a pattern with its reason, in English and
Chinese; a listed text matching one is flagged and quarantined like a change until a person trusts it.
Tuned against 5,645 real descriptions (`benchmarks/poisoning_screen.py`): a false alarm costs a review, so
words that honest tools use ("API key", "before using this tool, call list_x") are not rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, cast

INVISIBLE = re.compile(
    "[\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
"""Zero-width and word-joiner characters, bidirectional marks and overrides, a byte-order mark inside text, tag
characters and the supplementary variation selectors; not ZWJ and ZWNJ, which emoji and Persian need."""

_RULES: tuple[tuple[str, str], ...] = (
    (
        "an order to ignore earlier instructions",
        r"\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?"
        r"(previous|prior|above|earlier|preceding|other|system)\s+(instructions?|prompts?|rules|directions|messages)"
        r"|忽略(之前|以前|先前|上面|上述|前面|所有|其他)(的)?(所有)?(指令|指示|说明|提示|规则)"
        r"|无视(之前|以前|先前|上面|上述|所有)(的)?(指令|指示|说明|提示|规则)",
    ),
    (
        "an order to keep something from the user",
        r"\b(do\s+not|don'?t|never|must\s+not)\s+(tell|inform|notify|mention\s+(this\s+|it\s+)?to|alert|reveal\s+"
        r"(this\s+|it\s+)?to|show\s+(this\s+|it\s+)?to|let)\s+(the\s+)?user"
        r"|\bwithout\s+(telling|informing|notifying|alerting)\s+(the\s+)?user"
        r"|\b(hide|conceal)\s+(this|it|that)\s+from\s+(the\s+)?user"
        r"|\bthe\s+user\s+(must|should)\s+(not|never)\s+(know|see|be\s+told)"
        r"|(不要|不得|切勿|请勿|别|不能)(告诉|告知|通知|提醒|让)用户"
        r"|(不要|不得|切勿|请勿|不能)(向|对)用户(透露|提及|显示|说明|展示)"
        r"|(对|向)用户(保密|隐瞒)|瞒着用户|无需(告知|通知)用户",
    ),
    (
        "a hidden block addressed to the model",
        r"<\s*/?\s*(important|system|instructions?|secret|hidden|admin|critical|assistant)\s*>"
        r"|\[\s*(system|hidden|secret)\s*(instructions?|prompt|message)?\s*\]"
        r"|<\s*/?\s*(重要|系统|指令|秘密)\s*>",
    ),
    (
        "a say over other tools",
        r"\bwhen\s+this\s+tool\s+is\s+(available|present|loaded|installed|enabled)"
        r"|\b(all|every)\s+(other\s+)?tools?\s+(must|should)\s+(now\s+)?(send|use|call|forward|include)"
        r"|\binstead\s+of\s+(any|the)\s+other\s+tools?\b"
        r"|当(此|这个|本)工具(可用|存在|加载)时|(所有|其他)工具(都)?(必须|应该)",
    ),
    (
        "a reference to secrets or private files",
        r"~/\.ssh\b|\.ssh/(id_|authorized_keys|config\b)|\bid_(rsa|ed25519|ecdsa|dsa)\b"
        r"|/etc/(passwd|shadow|sudoers)\b|~/\.aws\b|\.aws/credentials|~/\.gnupg|\.netrc\b|\.pgpass\b"
        r"|\bmcp\.json\b|claude_desktop_config\.json|~/\.cursor\b|\.kube/config\b|\.docker/config\.json"
        r"|\b(send|pass|include|upload|exfiltrate|leak|forward)\s+(the\s+|all\s+|any\s+)?(user'?s\s+)?"
        r"(private\s+keys?|ssh\s+keys?|passwords?|credentials|secrets|api\s+keys?|tokens)\s+(to|as|in)\b"
        r"|(读取|发送|上传|泄露)(用户的?)?(私钥|密钥|密码|凭据|凭证)",
    ),
)

RULES = tuple((reason, re.compile(pattern, re.IGNORECASE)) for reason, pattern in _RULES)


def screened(definition: Mapping[str, Any]) -> list[str]:
    """Why `definition` (a tool, prompt or template as listed) looks poisoned: one reason per rule it breaks,
    each naming where ("description: an order to keep something from the user"); empty when clean."""
    reasons: list[str] = []
    for where, text in _texts(definition):
        for reason in judge(text):
            worded = f"{where}: {reason}"
            if worded not in reasons:
                reasons.append(worded)
    return reasons


def judge(text: str) -> list[str]:
    """The rules `text` breaks, by reason."""
    reasons: list[str] = []
    invisible = INVISIBLE.search(text)
    if invisible is not None:
        reasons.append(f"an invisible or direction-changing character (U+{ord(invisible.group()):04X})")
    reasons += [reason for reason, pattern in RULES if pattern.search(text)]
    return reasons


def _texts(definition: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every text a model may read in `definition`: its own strings, and every key and string of its schemas."""
    for key in ("name", "title", "description"):
        value = definition.get(key)
        if isinstance(value, str):
            yield key, value
    for key in ("inputSchema", "outputSchema", "arguments"):
        if key in definition:
            yield from ((key, text) for text in _strings(definition[key]))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in cast(dict[Any, Any], value).items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in cast(list[Any], value):
            yield from _strings(item)
