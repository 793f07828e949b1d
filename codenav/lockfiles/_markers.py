"""A small PEP 508 environment-marker evaluator for choosing among marker forks (lockfiles.md §2).

It reads ``and``/``or``/parentheses and comparisons between a marker variable and a quoted
string (either side), with ``== != < <= > >= ~= === in not in``. Version variables compare as
release tuples (``python_full_version == '3.10.*'`` is a prefix match); others as strings. A
marker it cannot read counts as false, so an unreadable fork is never preferred.
"""

from __future__ import annotations

_VERSION_VARS = {"python_version", "python_full_version", "implementation_version", "platform_release"}
_OPS = ("===", "==", "!=", "<=", ">=", "~=", "<", ">")


class _Bad(ValueError):
    pass


def evaluate_any(marker: object, env: dict[str, str]) -> bool:
    """True when there is no marker, or when the marker (or any of a list of them) holds."""
    if marker is None or marker == "":
        return True
    if isinstance(marker, list):
        return any(evaluate_any(m, env) for m in marker if isinstance(m, str)) if marker else True
    if not isinstance(marker, str):
        return False
    try:
        return evaluate(marker, env)
    except _Bad:
        return False


def evaluate(marker: str, env: dict[str, str]) -> bool:
    tokens = _tokens(marker)
    value, pos = _or(tokens, 0, env)
    if pos != len(tokens):
        raise _Bad("trailing tokens")
    return value


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append(("p", c))
            i += 1
        elif c in "'\"":
            end = text.find(c, i + 1)
            if end < 0:
                raise _Bad("unterminated string")
            out.append(("s", text[i + 1:end]))
            i = end + 1
        elif c in "=!<>~":
            op = next((o for o in _OPS if text.startswith(o, i)), None)
            if op is None:
                raise _Bad("bad operator")
            out.append(("o", op))
            i += len(op)
        else:
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] in "_."):
                j += 1
            if j == i:
                raise _Bad("unexpected character")
            out.append(("w", text[i:j]))
            i = j
    return out


def _or(tokens, pos, env):
    return _joined(tokens, pos, env, "or", _and)


def _and(tokens, pos, env):
    return _joined(tokens, pos, env, "and", _atom)


def _joined(tokens, pos, env, word, operand):
    """``operand (word operand)*``, left to right; every operand is read (a marker has no effects)."""
    value, pos = operand(tokens, pos, env)
    while pos < len(tokens) and tokens[pos] == ("w", word):
        right, pos = operand(tokens, pos + 1, env)
        value = (value or right) if word == "or" else (value and right)
    return value, pos


def _atom(tokens, pos, env):
    if pos < len(tokens) and tokens[pos] == ("p", "("):
        value, pos = _or(tokens, pos + 1, env)
        if pos >= len(tokens) or tokens[pos] != ("p", ")"):
            raise _Bad("missing ')'")
        return value, pos + 1
    left, pos = _operand(tokens, pos, env)
    if pos < len(tokens) and tokens[pos] == ("w", "not") and pos + 1 < len(tokens) \
            and tokens[pos + 1] == ("w", "in"):
        op, pos = "not in", pos + 2
    elif pos < len(tokens) and tokens[pos] == ("w", "in"):
        op, pos = "in", pos + 1
    elif pos < len(tokens) and tokens[pos][0] == "o":
        op, pos = tokens[pos][1], pos + 1
    else:
        raise _Bad("expected an operator")
    right, pos = _operand(tokens, pos, env)
    return _compare(left, op, right), pos


def _operand(tokens, pos, env):
    if pos >= len(tokens):
        raise _Bad("missing operand")
    kind, text = tokens[pos]
    if kind == "s":
        return (None, text), pos + 1
    if kind == "w" and text in env:
        return (text, env[text]), pos + 1
    raise _Bad("unknown marker variable")


def _release(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split("."):
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


def _compare(left, op, right) -> bool:
    var = left[0] or right[0]
    a, b = left[1], right[1]
    if op in ("in", "not in"):
        return (a in b) == (op == "in")
    if var in _VERSION_VARS and op != "===":
        if op in ("==", "!=") and b.endswith(".*"):
            prefix = _release(b[:-2])
            hit = _release(a)[:len(prefix)] == prefix
            return hit == (op == "==")
        x, y = _release(a), _release(b)
        width = max(len(x), len(y))
        x, y = x + (0,) * (width - len(x)), y + (0,) * (width - len(y))
        if op == "~=":
            stem = _release(b)[:-1]
            return x >= y and _release(a)[:len(stem)] == stem
        return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
    return {"==": a == b, "===": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
            ">=": a >= b, "~=": a == b}[op]
