"""XML from a registry or a package manager's config file, read safely (reference §0.4).

``parse(data, what)`` returns the root element with namespaces dropped from every tag, or
raises ``ValueError`` saying why the document cannot be read; callers turn that into their
error (PROTOCOL_ERROR for a registry answer). ``config_file(path, what)`` is None for a
configuration file that cannot be read: the next source of the ladder applies. The rules:

- at most ``MAX_XML_BYTES`` (or the caller's cap) are read: a metadata file is small;
- a document that declares a DTD (``<!DOCTYPE``) or an entity (``<!ENTITY``) is refused before
  it is parsed: ElementTree has no switch to turn DTD processing off, and the declarations are
  the door to entity expansion bombs and external entities. No Maven or NuGet document needs one;
- a document that is not UTF-8 (a NUL byte: UTF-16 or binary) is refused: the scan above
  must see the bytes the parser sees.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

MAX_XML_BYTES = 16 * 1024 * 1024
CONFIG_CAP = 1024 * 1024  # a package manager's configuration file (settings.xml, NuGet.Config)


def parse(data: bytes, what: str, cap: int = MAX_XML_BYTES) -> Element:
    """The root of ``data`` with ``{namespace}`` prefixes removed from tags; ValueError if refused."""
    from xml.etree import ElementTree

    if len(data) > cap:
        raise ValueError(f"{what} is larger than {cap // 1024} KiB")
    if b"\0" in data:
        raise ValueError(f"{what} is not UTF-8 text")
    upper = data.upper()
    if b"<!DOCTYPE" in upper or b"<!ENTITY" in upper:
        raise ValueError(f"{what} declares a DTD or an entity, which codenav refuses to read")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise ValueError(f"{what} is not well-formed XML ({exc})") from None
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = element.tag.split("}", 1)[1]
    return root


def text(element: Element | None, path: str) -> str | None:
    """The stripped text of the first ``path`` below ``element``, or None when absent or empty."""
    if element is None:
        return None
    found = element.find(path)
    value = (found.text or "").strip() if found is not None else ""
    return value or None


def config_file(path: str, what: str, mentions: bytes = b"") -> Element | None:
    """The root of a package manager's XML configuration file, or None when it is missing,
    unreadable or refused (the tool would stop on it; codenav falls back to the next source),
    or does not hold ``mentions`` (decided without an XML parser: the usual case)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(CONFIG_CAP + 1)
    except OSError:
        return None
    if mentions not in data:
        return None
    try:
        return parse(data.removeprefix(b"\xef\xbb\xbf"), what, cap=CONFIG_CAP)
    except ValueError:
        return None
