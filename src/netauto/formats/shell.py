"""POSIX sh scripts as netauto renders them: the words that run as commands.

Not a full shell parser: a small lexer (quotes, `${...}`, `$((...))`, `$(...)` and backticks, here-documents,
operators) and a state machine over its tokens that lists every word at a command position: the start of a
line or pipeline element, after `;`, `&&`, `||`, `|`, `&`, `(`, `{`, `!` and the reserved words that open a
command list, inside `$(...)` and backticks. Case patterns, function definitions and assignments are not
commands. That is what `validate` needs to notice a command that no netauto template writes (a hand-edited
script, or inventory text that escaped its quotes); `sh -n` and shellcheck check the syntax.
"""

from __future__ import annotations

import re

OPERATORS = ("&&", "||", ";;", ";", "|", "&", "(", ")", "\n")
_OPENING = frozenset({"if", "then", "else", "elif", "while", "until", "do", "!", "{", "time"})
_CLOSING = frozenset({"fi", "done", "esac", "}"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?")


def _without_heredocs(text: str) -> str:
    """`text` with the bodies of here-documents blanked (they are data, not commands); line numbers kept."""
    out: list[str] = []
    ending: list[str] = []
    for line in text.split("\n"):
        if ending:
            if line.strip() == ending[0]:
                ending.pop(0)
            out.append("")
            continue
        out.append(line)
        if not line.lstrip().startswith("#"):
            ending += _HEREDOC.findall(line)
    return "\n".join(out)


def _closing(text: str, i: int, opening: str, closing: str) -> int:
    """Index after the `closing` that balances the `opening` at text[i] (quotes respected)."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = text.find("'", i + 1) + 1 or len(text)
            continue
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def tokens(text: str, line: int = 1) -> list[tuple[int, str]]:
    """(line, token) of `text`: words (quotes kept), operators and newlines; `$(...)`/backtick bodies are
    lexed too and follow as ("(", ... ")") groups right after their word."""
    out: list[tuple[int, str]] = []
    subs: list[tuple[int, str]] = []
    word, i, start = "", 0, line
    while i < len(text):
        c = text[i]
        if text.startswith("\\\n", i):  # a line continuation: whitespace
            if word:
                out.append((start, word))
                word = ""
            line += 1
            i += 2
        elif c == "\\":
            word += text[i:i + 2]
            i += 2
        elif c in "<>":  # a redirection: `2>&1`, `>&2`, `>|` stay one word with what follows
            word += c
            i += 1
            if i < len(text) and text[i] in "&|":
                word += text[i]
                i += 1
        elif c == "#" and not word:
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif c == "'":
            end = text.find("'", i + 1)
            end = len(text) if end < 0 else end + 1
            word += text[i:end]
            line += text[i:end].count("\n")
            i = end
        elif c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                if text[j] == "\\":
                    j += 2
                    continue
                if text.startswith("$(", j) and not text.startswith("$((", j):
                    end = _closing(text, j + 1, "(", ")")
                    subs.append((line + text[i:j].count("\n"), text[j + 2:end - 1]))
                    j = end
                    continue
                if text[j] == "`":
                    end = text.find("`", j + 1)
                    end = len(text) if end < 0 else end + 1
                    subs.append((line + text[i:j].count("\n"), text[j + 1:end - 1]))
                    j = end
                    continue
                j += 1
            word += text[i:j + 1]
            line += text[i:j + 1].count("\n")
            i = j + 1
        elif text.startswith("$((", i):
            end = _closing(text, i + 1, "(", ")")
            word += text[i:end]
            i = end
        elif text.startswith("$(", i) or c == "`":
            end = _closing(text, i + 1, "(", ")") if c == "$" else (text.find("`", i + 1) + 1 or len(text))
            body = text[i + 2:end - 1] if c == "$" else text[i + 1:end - 1]
            subs.append((line, body))
            word += text[i:end]
            line += text[i:end].count("\n")
            i = end
        elif text.startswith("${", i):
            end = _closing(text, i + 1, "{", "}")
            word += text[i:end]
            i = end
        elif c in " \t" or any(text.startswith(op, i) for op in OPERATORS):
            if word:
                out.append((start, word))
                word = ""
            if c not in " \t":
                op = next(op for op in OPERATORS if text.startswith(op, i))
                out.append((line, op))
                line += op == "\n"
                i += len(op)
            else:
                i += 1
        else:
            if not word:
                start = line
            word += c
            i += 1
    if word:
        out.append((start, word))
    for at, body in subs:
        out += [(at, "\n"), *tokens(body, at), (at, "\n")]
    return out


def command_heads(text: str) -> list[tuple[int, str]]:
    """(line, word) for every word `text` runs as a command, command substitutions included."""
    toks = tokens(_without_heredocs(text))
    heads: list[tuple[int, str]] = []
    expect, pattern, skip_to = True, False, ""
    for k, (line, tok) in enumerate(toks):
        nxt = toks[k + 1][1] if k + 1 < len(toks) else ""
        if skip_to:  # `case WORD in`, `for NAME in WORDS;`
            if tok == skip_to or (skip_to == ";" and tok == "\n"):
                pattern = skip_to == "in"
                skip_to = ""
                expect = True
            continue
        if pattern:  # case patterns up to `)`
            if tok == ")":
                pattern, expect = False, True
            elif tok == "esac":
                pattern, expect = False, False
            continue
        if tok == "{":
            expect = True
        elif tok in ("\n", ";", "&&", "||", "|", "&", "("):
            expect = True
        elif tok == ";;":
            pattern = True
        elif tok == ")":
            expect = False
        elif not expect:
            continue
        elif tok == "case":
            skip_to = "in"
        elif tok == "for":
            skip_to = ";"
        elif tok in _OPENING:
            expect = True
        elif tok in _CLOSING:
            expect = False
        elif _ASSIGNMENT.match(tok):
            continue
        elif nxt == "(" and k + 2 < len(toks) and toks[k + 2][1] == ")":
            expect = False  # `name() {`: a function definition
        else:
            heads.append((line, tok))
            expect = False
    return heads
