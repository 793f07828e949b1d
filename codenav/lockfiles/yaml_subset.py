"""The subset of YAML that pnpm-lock.yaml, Yarn 2+'s yarn.lock, pixi.lock and conda-lock.yml are written
in (lockfiles.md §3.3).

Supported: block mappings nested by indentation; block sequences of scalars (``- x``) and of
block mappings (``- conda: URL`` with the mapping's other keys below it), also at the indentation
of their key (``depends:`` then ``- x`` in the same column, as pixi writes them); plain,
single-quoted and double-quoted scalars and keys (a plain key may hold ``:``, ``@``, ``#`` and
``/``: it ends at the first ``:`` followed by a space or the end of the line); flow mappings and
flow sequences on one line (``{integrity: …}``, ``[x64]``); ``|``/``>`` block scalars; comments;
several documents separated by ``---``. Every scalar stays a string (so ``lockfileVersion: 5.4``
is ``"5.4"``, not a float); an empty value is ``None``. Anything else — anchors, aliases, tags,
directives, complex keys, tabs in indentation, multi-line flow collections, sequences inside
sequences — raises ``YamlError`` naming the line, rather than being guessed at.
"""

from __future__ import annotations


class YamlError(ValueError):
    """Input outside the supported subset, or malformed; the message names the line (``key``: the
    top-level key whose block it is in, for ``top_level``)."""

    key = ""


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "/": "/", " ": " ",
            "b": "\b", "f": "\f", "e": "\x1b", "a": "\a", "v": "\v", "N": "\x85", "_": "\xa0"}


def load_all(text: str) -> list[dict]:
    """Every document of ``text`` as a dict (an empty document is ``{}``)."""
    docs: list[dict] = []
    lines: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if line.startswith("---") and line[3:4] in ("", " ", "\t"):
            docs.append(_document(lines))
            lines = []
            rest = line[3:].strip()
            if rest and not rest.startswith("#"):
                raise YamlError(f"line {number}: content after '---' is not supported")
            continue
        if line.startswith("...") and line[3:].strip() == "":
            continue
        if line.startswith("%"):
            raise YamlError(f"line {number}: YAML directives are not supported")
        lines.append((number, line))
    docs.append(_document(lines))
    # A leading '---' yields an empty first document; YAML does not count it.
    if len(docs) > 1 and docs[0] == {} and not any(ln.strip() and not ln.lstrip().startswith("#")
                                                   for _, ln in _first_lines(text)):
        docs.pop(0)
    return docs


def load(text: str) -> dict:
    """The last document of ``text`` (pnpm ≥ 11 puts the project's graph last, §5.1)."""
    return load_all(text)[-1]


def top_level(text: str, keys: tuple[str, ...]) -> dict:
    """The values of a few top-level keys, each block read alone, so that a construct elsewhere in
    the file that the subset refuses (a ``.condarc``'s other settings, a pubspec.yaml's
    ``flutter:`` section) does not hide them. ``YamlError`` (with ``key``, the key whose own block
    the subset refuses) when one of those blocks cannot be read."""
    lines = text.replace("\r\n", "\n").split("\n")
    values: dict = {}
    for at, line in enumerate(lines):
        key = line.split(":", 1)[0].strip().strip("'\"")
        if key not in keys or line[:1].isspace() or ":" not in line:
            continue
        block = [line]
        for rest in lines[at + 1:]:
            if rest.strip() and not rest[:1].isspace() and not rest.startswith(("-", "#")):
                break
            block.append(rest)
        try:
            values.update(load("\n".join(block)))
        except (YamlError, IndexError) as e:
            error = YamlError(f"its {key!r} cannot be read ({e})")
            error.key = key
            raise error from None
    return values


def _first_lines(text: str):
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("---"):
            return
        yield number, line


def _document(lines: list[tuple[int, str]]) -> dict:
    root: dict = {}
    # The stack holds (indent of the keys in this container, container).
    stack: list[tuple[int, object]] = [(-1, root)]
    pending: tuple[dict, str, int] | None = None   # a "key:" whose block value is not known yet
    last_scalar: tuple[dict, str, int] | None = None  # for continuation lines of a plain scalar
    carry: tuple[int, str] | None = None  # the first key of a "- key: value" item, as its own line
    i = 0
    while i < len(lines) or carry is not None:
        if carry is not None:
            (number, line), carry = carry, None
        else:
            number, line = lines[i]
            i += 1
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        if stripped[0] == "\t" or (line[:len(line) - len(stripped)].count("\t")):
            raise YamlError(f"line {number}: tabs in indentation are not supported")
        indent = len(line) - len(stripped)
        is_item = stripped == "-" or stripped.startswith("- ")

        if pending is not None:
            parent, key, key_indent = pending
            pending = None
            if indent > key_indent or (is_item and indent == key_indent):
                child: object = [] if is_item else {}
                parent[key] = child
                stack.append((indent, child))
            # else: the value stays None
        elif last_scalar is not None and indent > last_scalar[2] and not is_item \
                and _key_end(stripped) is None:
            # A continuation line of a multi-line plain scalar (a long `deprecated:` message).
            parent, key, _ = last_scalar
            parent[key] = f"{parent[key]} {stripped.strip()}"
            continue
        last_scalar = None

        # A sequence written at its key's indentation ends at the next line there that is no item.
        while len(stack) > 1 and (indent < stack[-1][0] or (
                indent == stack[-1][0] and not is_item and isinstance(stack[-1][1], list))):
            stack.pop()
        top_indent, container = stack[-1]
        if indent != top_indent and len(stack) > 1:
            raise YamlError(f"line {number}: unexpected indentation")
        if indent != top_indent:  # the root container: take its indent from the first line
            if root or top_indent != -1:
                raise YamlError(f"line {number}: unexpected indentation")
            stack[-1] = (indent, root)

        if is_item:
            if not isinstance(container, list):
                raise YamlError(f"line {number}: a '- ' item where a mapping key was expected")
            item = stripped[1:].strip()
            if item and _key_end(item) is not None and item[0] not in "'\"{[":
                if item.startswith("- ") or item == "-":
                    raise YamlError(f"line {number}: sequences inside sequences are not supported")
                mapping: dict = {}
                container.append(mapping)
                column = len(line) - len(stripped[1:].lstrip(" "))
                stack.append((column, mapping))
                carry = (number, " " * column + item)
                continue
            if item.startswith("- ") or item == "-":
                raise YamlError(f"line {number}: sequences inside sequences are not supported")
            container.append(_scalar(item, number) if item else None)
            continue
        if not isinstance(container, dict):
            raise YamlError(f"line {number}: a mapping key where a '- ' item was expected")

        key, rest = _split_key(stripped, number)
        if key in container:
            raise YamlError(f"line {number}: duplicate key {key}")
        value = rest.strip()
        if value.startswith("#"):
            value = ""
        if not value:
            container[key] = None
            pending = (container, key, indent)
            continue
        if value[0] in "|>":
            header = value.split(" #", 1)[0].strip()
            if any(c not in "|>+-0123456789" for c in header):
                raise YamlError(f"line {number}: unsupported block scalar header")
            body: list[str] = []
            while i < len(lines):
                n2, l2 = lines[i]
                s2 = l2.lstrip(" ")
                if s2 and len(l2) - len(s2) <= indent:
                    break
                body.append(s2)
                i += 1
            joiner = "\n" if value[0] == "|" else " "
            container[key] = joiner.join(body).strip("\n ") + ("\n" if value[0] == "|" else "")
            continue
        container[key] = _scalar(value, number)
        if value[0] not in "'\"{[":
            last_scalar = (container, key, indent)
    return root


def _key_end(text: str) -> int | None:
    """Where a plain ``key:`` ends (the index of its ':'), or None if the text is no key line."""
    start = 0
    while True:
        colon = text.find(":", start)
        if colon < 0:
            return None
        if colon + 1 == len(text) or text[colon + 1] == " ":
            return colon
        start = colon + 1


def _split_key(text: str, number: int) -> tuple[str, str]:
    first = text[0]
    if first in "'\"":
        key, end = _quoted(text, 0, number)
        if text[end:end + 1] != ":" or text[end + 1:end + 2] not in ("", " "):
            raise YamlError(f"line {number}: expected ':' after a quoted key")
        return key, text[end + 1:]
    if first in "?&*!%@`|>[{,":
        # '@' cannot start a plain scalar in YAML (pnpm quotes such keys); the rest are
        # complex keys, anchors, aliases, tags and flow keys this subset does not read.
        raise YamlError(f"line {number}: unsupported YAML construct {first!s} at the start of a key")
    colon = _key_end(text)
    if colon is None:
        raise YamlError(f"line {number}: expected 'key: value'")
    return text[:colon].rstrip(), text[colon + 1:]


def _quoted(text: str, pos: int, number: int) -> tuple[str, int]:
    """The quoted scalar starting at ``pos``; returns (value, index after the closing quote)."""
    quote = text[pos]
    out: list[str] = []
    i = pos + 1
    while i < len(text):
        c = text[i]
        if quote == "'":
            if c == "'":
                if text[i + 1:i + 2] == "'":
                    out.append("'")
                    i += 2
                    continue
                return "".join(out), i + 1
            out.append(c)
            i += 1
            continue
        if c == '"':
            return "".join(out), i + 1
        if c == "\\":
            esc = text[i + 1:i + 2]
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
                i += 2
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(esc)
            digits = text[i + 2:i + 2 + width] if width else ""
            if not width or len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise YamlError(f"line {number}: bad escape in a double-quoted scalar")
            out.append(chr(int(digits, 16)))
            i += 2 + width
            continue
        out.append(c)
        i += 1
    raise YamlError(f"line {number}: unterminated quoted scalar (multi-line scalars are not supported)")


def _scalar(value: str, number: int) -> object:
    """A value on the rest of a line: quoted, flow collection or plain (comments stripped)."""
    first = value[0]
    if first in "'\"":
        result, end = _quoted(value, 0, number)
        _expect_end(value, end, number)
        return result
    if first in "{[":
        result, end = _flow(value, 0, number)
        _expect_end(value, end, number)
        return result
    if first in "&*!%@`":
        raise YamlError(f"line {number}: unsupported YAML construct {first} (anchors, aliases and tags are not read)")
    comment = value.find(" #")
    return (value[:comment] if comment >= 0 else value).rstrip()


def _expect_end(value: str, end: int, number: int) -> None:
    rest = value[end:].strip()
    if rest and not rest.startswith("#"):
        raise YamlError(f"line {number}: unexpected text after a value")


def _flow(text: str, pos: int, number: int) -> tuple[object, int]:
    """A flow mapping or sequence starting at ``pos`` (one line only)."""
    opening = text[pos]
    closing = "}" if opening == "{" else "]"
    result: object = {} if opening == "{" else []
    i = _skip_spaces(text, pos + 1)
    while True:
        if i >= len(text):
            raise YamlError(f"line {number}: unterminated flow collection (multi-line flow is not supported)")
        if text[i] == closing:
            return result, i + 1
        if opening == "{":
            key, i = _flow_item(text, i, number, key=True)
            i = _skip_spaces(text, i)
            if text[i:i + 1] == ":":
                value, i = _flow_item(text, _skip_spaces(text, i + 1), number, key=False)
            else:
                value = None
            result[key] = value
        else:
            value, i = _flow_item(text, i, number, key=False)
            result.append(value)
        i = _skip_spaces(text, i)
        if text[i:i + 1] == ",":
            i = _skip_spaces(text, i + 1)
        elif text[i:i + 1] != closing:
            raise YamlError(f"line {number}: expected ',' or '{closing}' in a flow collection")


def _skip_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] == " ":
        i += 1
    return i


def _flow_item(text: str, i: int, number: int, *, key: bool) -> tuple[object, int]:
    if i >= len(text):
        raise YamlError(f"line {number}: unterminated flow collection")
    c = text[i]
    if c in "'\"":
        return _quoted(text, i, number)
    if c in "{[":
        if key:
            raise YamlError(f"line {number}: collections as keys are not supported")
        return _flow(text, i, number)
    if c in "&*!%@`":
        raise YamlError(f"line {number}: unsupported YAML construct {c} in a flow collection")
    start = i
    while i < len(text):
        c = text[i]
        if c in ",]}":
            break
        # A plain key ends at ': '; a plain value may hold ':' (file:///…) but never ': '.
        if c == ":" and (i + 1 == len(text) or text[i + 1] in " ,]}"):
            if key:
                break
            raise YamlError(f"line {number}: ': ' inside a flow value")
        i += 1
    return text[start:i].strip(), i
