"""Go's checksum database: is this module zip the one every Go user gets? (SPEC §3.11)

- where: CODENAV_GOSUMDB, else GOSUMDB (the environment, then the ``go env -w`` file), else the
  public ``sum.golang.org`` key written once below. A plain base URL is trusted over its
  connection only; Go's ``name+hash+key [url]`` form (or the bare name ``sum.golang.org``)
  checks the key hash, and without a URL the database is asked through the first proxy that
  mirrors it (go.py asks them), else at ``https://<name>/``;
- ``/lookup/$module@$version`` gives the record (its number and go.sum lines) and the signed
  tree note; the note must carry a valid Ed25519 signature by the key (registries/signatures.py)
  and the record must be in the tree it names: its RFC 6962 audit path is computed from the
  database's tiles (``tile/8/L/x001/234[.p/W]``) and must give the signed root. No tree is
  remembered between calls, so there is no consistency proof;
- not consulted (``verified: false`` with the reason): GOSUMDB=off, GONOSUMCHECK=1, ``-insecure``
  in GOFLAGS, a module matching GONOSUMDB (default GOPRIVATE);
- ``h1_of_zip``: Go's dirhash.Hash1 of the downloaded zip, what the go.sum line states.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, protocol_error, too_large
from . import goenv
from .base import Client, clean
from .signatures import ed25519_verify

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable

    from .artifact import Verification

WHAT = "the Go checksum database"
VARIABLE = "CODENAV_GOSUMDB"
# The public database and its key, as the go command has them built in (written only here).
DEFAULT_GOSUMDB = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"
LOOKUP_CAP = 16 * 1024 * 1024  # bytes of a lookup answer
_HTTP = Client(WHAT)


def _setting() -> str:
    own = os.environ.get(VARIABLE, "").strip()
    return own or goenv.setting("GOSUMDB").strip() or DEFAULT_GOSUMDB


def unchecked_reason(module: str) -> str | None:
    """Why the go command would not consult the checksum database for ``module``, or None."""
    setting = _setting()
    if setting == "off":
        return "GOSUMDB is off: the checksum database is not consulted"
    if goenv.setting("GONOSUMCHECK") == "1":
        return "GONOSUMCHECK=1: the checksum database is not consulted"
    if any(flag.split("=", 1)[0].lstrip("-") == "insecure" and not flag.endswith("=false")
           for flag in goenv.setting("GOFLAGS").split()):
        return "GOFLAGS has -insecure: the checksum database is not consulted"
    patterns = goenv.setting("GONOSUMDB") or goenv.setting("GOPRIVATE")
    if goenv.matches(module, patterns):
        which = "GONOSUMDB" if goenv.setting("GONOSUMDB") else "GOPRIVATE"
        return f"{module} matches {which} ({patterns}): a private module is not in the checksum database"
    return None


class SumDB:
    """Where and how to ask: a plain URL (trusted over TLS) or a named database with its key."""

    def __init__(self, name: str, url: str | None, key: bytes | None, key_text: str) -> None:
        self.name, self.url, self.key, self.key_text = name, url, key, key_text


def parse_sumdb(setting: str) -> SumDB:
    """``https://host/path`` | ``name+hash+key [url]`` | ``sum.golang.org [url]`` (the built-in key)."""
    if setting.startswith(("http://", "https://")):
        return SumDB(setting, clean(setting), None, "")
    fields = setting.split()
    if not fields or len(fields) > 2:
        raise _config_error(setting, "expected 'name+hash+key [url]' or a base URL")
    named = fields[0]
    if "+" not in named:
        default = DEFAULT_GOSUMDB.split("+", 1)[0]
        if named != default:
            raise _config_error(setting, f"{named} is not a database codenav knows the key of; give name+hash+key")
        named = DEFAULT_GOSUMDB
    name, key = parse_verifier_key(named, setting)
    url = clean(fields[1] if "://" in fields[1] else "https://" + fields[1]) if len(fields) == 2 else None
    return SumDB(name, url, key, named)


def parse_verifier_key(text: str, setting: str | None = None) -> tuple[str, bytes]:
    """A note verifier key ``name+hash+base64(0x01 || ed25519 key)``: (name, 32-byte key);
    the hash must be the first 4 bytes of sha256(name + "\\n" + 0x01 || key)."""
    import base64
    import binascii
    import hashlib

    name, _, rest = text.partition("+")
    key_hash, _, data = rest.partition("+")
    try:
        raw = base64.b64decode(data, validate=True)
        wanted = int(key_hash, 16)
    except (ValueError, binascii.Error):
        raise _config_error(setting or text, "the key is not name+hash+base64") from None
    if not name or len(key_hash) != 8 or len(raw) != 33 or raw[0] != 1:
        raise _config_error(setting or text, "the key is not an Ed25519 note verifier key")
    digest = hashlib.sha256(name.encode() + b"\n" + raw).digest()
    if int.from_bytes(digest[:4], "big") != wanted:
        raise _config_error(setting or text, "the key's hash does not match its name and key")
    return name, raw[1:]


def _config_error(setting: str, why: str) -> CodenavError:
    return CodenavError("CONFIG_ERROR", f"the checksum database setting {setting!r} cannot be used: {why}",
                        details={"action": f"set {VARIABLE} to a base URL or to GOSUMDB's name+hash+key [url]"})


def verification(module: str, version: str, mirror: Callable[[str], str | None]) -> Verification:
    """How the module zip is checked: its h1 against the line the database's ``/lookup`` gives
    (``mirror(name)``: a proxy's URL for the database, when one mirrors it), or why not."""
    from .artifact import Verification

    reason = unchecked_reason(module)
    if reason:
        return Verification("none", source=reason)
    db = parse_sumdb(_setting())
    url = db.url or mirror(db.name) or f"https://{db.name}/"
    body = _lookup(url, module, version)
    record, sep, note = body.partition("\n\n")
    expected = None
    for line in record.splitlines()[1:]:
        fields = line.split()
        if len(fields) == 3 and fields[0] == module and fields[1] == version and fields[2].startswith("h1:"):
            expected = fields[2]
    if not record.split("\n", 1)[0].strip().isdigit() or expected is None:
        raise protocol_error(f"{WHAT} sent a lookup for {module}@{version} without its h1 line")
    if db.key is None:
        source = ("the checksum database's h1 line, from a plain URL: no key, so the note signature "
                  "is not verified and only the connection is trusted")
    else:
        if not sep or not _note_signed(note, db.name, db.key):
            raise CodenavError(
                "INTEGRITY_ERROR",
                f"{WHAT} answer for {module}@{version} is not signed by the key of {db.name}; nothing was cached",
                details={"key": db.key_text},
            )
        _prove_record(url, record, note, module, version)
        source = (f"the checksum database's h1 line, its tree note signed by {db.name} and the record's "
                  "inclusion in that tree proven")
    return Verification("custom", "h1", expected, source)


# --- the Merkle inclusion proof (transparent log tiles, height 8) ---------------------------------

def _node(left: bytes, right: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(b"\x01" + left + right).digest()


def tile_path(level: int, index: int, width: int) -> str:
    """``tile/8/L/x001/x234/067[.p/W]``: the tile's index in groups of three digits."""
    groups = [f"{index % 1000:03d}"]
    index //= 1000
    while index:
        groups.append(f"x{index % 1000:03d}")
        index //= 1000
    return f"tile/8/{level}/{'/'.join(reversed(groups))}" + (f".p/{width}" if width < 256 else "")


class Tiles:
    """Stored hashes of a tree of ``size`` records, read from the database's tiles on demand."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.tiles = url, size, {}

    def tile(self, level: int, index: int, width: int) -> bytes:
        from .. import net

        path = tile_path(level, index, width)
        if path not in self.tiles:
            resp = _HTTP.get(self.url + path, 256 * 32)
            if resp.status in (404, 410):
                raise CodenavError("INTEGRITY_ERROR", f"{WHAT} does not serve the tile {path}, so the record "
                                                      "cannot be proven to be in its signed tree")
            if resp.status != 200:
                raise net.status_error(WHAT, resp)
            if len(resp.body) != width * 32:
                raise protocol_error(f"{WHAT} sent a tile {path} of the wrong size")
            self.tiles[path] = resp.body
        return self.tiles[path]

    def stored(self, level: int, index: int) -> bytes:
        """The hash of the complete subtree of 2**level records starting at record index << level."""
        tile_level, height = divmod(level, 8)
        first = index << height  # its first node at level 8 * tile_level
        number, offset = divmod(first, 256)
        width = min(256, (self.size >> (8 * tile_level)) - number * 256)
        data = self.tile(tile_level, number, width)
        hashes = [data[i * 32:(i + 1) * 32] for i in range(offset, offset + (1 << height))]
        while len(hashes) > 1:
            hashes = [_node(hashes[i], hashes[i + 1]) for i in range(0, len(hashes), 2)]
        return hashes[0]

    def range_hash(self, low: int, high: int) -> bytes:
        """RFC 6962 MTH of records [low, high): its complete subtrees, folded right to left."""
        parts = []
        while low < high:
            level = 0
            while low % (2 << level) == 0 and low + (2 << level) <= high:
                level += 1
            parts.append(self.stored(level, low >> level))
            low += 1 << level
        digest = parts[-1]
        for part in reversed(parts[:-1]):
            digest = _node(part, digest)
        return digest

    def root_with(self, index: int, low: int, high: int, leaf: bytes) -> bytes:
        """The tree hash of [low, high) computed with ``leaf`` at ``index``: equal to the signed
        root only if that record is in the tree (RFC 6962 §2.1.1 audit path)."""
        if high - low == 1:
            return leaf
        split = 1 << ((high - low - 1).bit_length() - 1)  # the largest power of two below the size
        if index < low + split:
            return _node(self.root_with(index, low, low + split, leaf), self.range_hash(low + split, high))
        return _node(self.range_hash(low, low + split), self.root_with(index, low + split, high, leaf))


def _prove_record(url: str, record: str, note: str, module: str, version: str) -> None:
    """The lookup's record (its number, its go.sum lines) is in the tree the signed note names."""
    import base64
    import binascii
    import hashlib

    head, _, lines = record.partition("\n")
    fields = note.split("\n")
    try:
        size, root = int(fields[1]), base64.b64decode(fields[2], validate=True)
        index = int(head)
    except (IndexError, ValueError, binascii.Error):
        raise protocol_error(f"{WHAT} sent a tree note that cannot be read") from None
    if not 0 <= index < size or len(root) != 32:
        raise CodenavError("INTEGRITY_ERROR", f"{WHAT} lists {module}@{version} outside its signed tree")
    leaf = hashlib.sha256(b"\x00" + (lines + "\n").encode("utf-8")).digest()
    if Tiles(url, size).root_with(index, 0, size, leaf) != root:
        raise CodenavError(
            "INTEGRITY_ERROR",
            f"{WHAT} record for {module}@{version} is not in the tree its signed note names; nothing was cached",
        )


def _lookup(url: str, module: str, version: str) -> str:
    from .. import net

    resp = _HTTP.get(f"{url}lookup/{goenv.escape(module)}@{goenv.escape(version)}", LOOKUP_CAP)
    if resp.status in (404, 410):
        raise CodenavError(
            "INTEGRITY_ERROR", f"{WHAT} has no record of {module}@{version}, so it cannot be verified",
            details={"action": "for a private module set GONOSUMDB or GOPRIVATE to its path"})
    if resp.status != 200:
        raise net.status_error(WHAT, resp)
    try:
        return resp.body.decode("utf-8")
    except UnicodeDecodeError:
        raise protocol_error(f"{WHAT} sent a lookup that is not text") from None


def _note_signed(note: str, name: str, key: bytes) -> bool:
    """A signed note (golang.org/x/mod/sumdb/note): text, a blank line, ``— name base64`` lines;
    true when one line by ``name`` carries a valid Ed25519 signature of the text."""
    import base64
    import binascii
    import hashlib

    cut = note.rfind("\n\n")
    if cut < 0:
        return False
    text, signatures = note[:cut + 1], note[cut + 2:]
    if not text.startswith("go.sum database tree\n"):
        return False
    key_hash = hashlib.sha256(name.encode() + b"\n\x01" + key).digest()[:4]
    for line in signatures.splitlines():
        dash, _, rest = line.partition(" ")
        signer, _, data = rest.partition(" ")
        if dash != "\u2014" or signer != name:
            continue
        try:
            raw = base64.b64decode(data, validate=True)
        except (ValueError, binascii.Error):
            continue
        if len(raw) == 68 and raw[:4] == key_hash and ed25519_verify(key, text.encode("utf-8"), raw[4:]):
            return True
    return False


# --- h1: Go's dirhash.Hash1 over the module zip --------------------------------------------------

def h1_of_zip(path: str, max_bytes: int | None = None) -> str:
    """``h1:`` + base64(sha256 of the sorted ``"<sha256 hex>  <name>\\n"`` lines of every zip
    entry), names as the bytes Go reads; at most ``max_bytes`` are decompressed."""
    import base64
    import hashlib
    import zipfile

    lines: list[bytes] = []
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                # Without the UTF-8 flag Python decoded the name as cp437: recover Go's bytes.
                raw = info.filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
                if b"\n" in raw:
                    raise CodenavError("INTEGRITY_ERROR", "the module zip has a file name with a newline, which "
                                                          "the h1 hash cannot cover; nothing was cached")
                digest = hashlib.sha256()
                with archive.open(info) as member:
                    while chunk := member.read(1 << 20):
                        total += len(chunk)
                        if max_bytes is not None and total > max_bytes:
                            raise too_large(f"the module zip expands to more than {max_bytes} bytes "
                                            "(CODENAV_MAX_EXTRACTED_BYTES)",
                                            limit=max_bytes, variable="CODENAV_MAX_EXTRACTED_BYTES")
                        digest.update(chunk)
                lines.append(digest.hexdigest().encode() + b"  " + raw + b"\n")
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError, ValueError) as exc:
        # A zip that cannot be read has no h1, so it cannot match the published one.
        reason = str(exc).strip().rstrip(".") or type(exc).__name__
        raise CodenavError("INTEGRITY_ERROR", f"the module zip cannot be read to compute its h1 hash ({reason}); "
                                              "nothing was cached") from None
    summary = b"".join(sorted(lines, key=lambda line: line.split(b"  ", 1)[1]))
    return "h1:" + base64.b64encode(hashlib.sha256(summary).digest()).decode()
