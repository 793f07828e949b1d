"""The ``supplyChain`` part: what a careful reviewer of an upgrade looks at first (SPEC §2.8.1).

Each finding is ``{kind, path, reason}``; the patch behind it is one ``diff_versions`` call
(``path=…``) away. Kinds, in the order they are reported:

- ``installHook``: something that runs when the package is installed or built, added or
  changed — npm ``preinstall``/``install``/``postinstall``/``prepare`` scripts and a
  ``binding.gyp`` (npm runs ``node-gyp rebuild`` for it), ``setup.py`` and the PEP 517 build
  backend, Cargo's build script, gemspec ``extensions``, Composer event scripts, NuGet
  ``build/*.targets``/``.props`` and ``tools/install.ps1``, Mix ``compilers``;
- ``binary``: a native binary added or changed, told by its content (ELF, Mach-O, PE,
  WebAssembly magic), whatever its name;
- ``executable``: another file added or changed that carries the executable bit;
- ``bin``: a command the package puts on PATH, added or pointed elsewhere (npm ``bin``,
  console/GUI scripts, gemspec ``executables``, Composer ``bin``, Cargo ``[[bin]]``);
- ``layout``: a top-level file or directory the previous version did not have;
- ``license``: the declared license changed, or a license file appeared, went, or changed in
  more than its years and spacing;
- ``minified``: a script that appears minified or packed (a line over ``LONG_LINE``
  characters, or over ``ENTROPY`` bits per byte) where the previous version had none.

A new dependency is the dependencies part's, never a finding here.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

    from .model import Manifest
    from .side import Side

KINDS = ("installHook", "binary", "executable", "bin", "layout", "license", "minified")
LONG_LINE = 2000  # characters: no hand-written source line is this long
ENTROPY = 5.6  # bits per byte: above hand-written and minified code, at packed or encoded payloads
SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".py", ".rb", ".php", ".pl",
                   ".sh", ".bash", ".ps1", ".bat", ".cmd", ".vbs", ".lua", ".ex", ".exs")
_LICENSE_NAMES = ("license", "licence", "copying", "unlicense")


def compute(old: Side, new: Side, old_manifests: list[Manifest], new_manifests: list[Manifest]
            ) -> list[dict[str, Any]]:
    """Every finding, in ``KINDS`` order, then by path."""
    changed = [p for p, row in new.rows.items() if row.link is None and _differs(old, new, p)]
    findings: list[dict[str, Any]] = []
    findings += _hooks(old, new, old_manifests, new_manifests)
    findings += _binaries(old, new, changed)
    findings += _bins(old_manifests, new_manifests)
    findings += _layout(old, new)
    findings += _licenses(old, new, old_manifests, new_manifests)
    findings += _minified(old, new, changed)
    order = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(findings, key=lambda f: (order[f["kind"]], f["path"], f["reason"]))


def _differs(old: Side, new: Side, path: str) -> bool:
    a, b = old.rows.get(path), new.rows.get(path)
    if a is None:
        return True
    if a.sha256 and b.sha256:
        return a.sha256 != b.sha256
    return a.size != b.size or old.read(path) != new.read(path)  # a ranged entry has no digest yet


def _finding(kind: str, path: str, reason: str) -> dict[str, Any]:
    return {"kind": kind, "path": path, "reason": reason}


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _paired(old: list[Manifest], new: list[Manifest]) -> list[tuple[Manifest | None, Manifest]]:
    by_format = {m.format: m for m in old if not m.error}
    return [(by_format.get(m.format), m) for m in new if not m.error]


def _hooks(old: Side, new: Side, old_m: list[Manifest], new_m: list[Manifest]) -> list[dict[str, Any]]:
    found = []
    for before, after in _paired(old_m, new_m):
        hooks_before = before.hooks if before is not None else {}
        for label, value in after.hooks.items():
            if label in new.rows:  # a file that runs: judged by its content
                if label not in old.rows:
                    found.append(_finding("installHook", label, f"{label} added: {_short(value)}"))
                elif _differs(old, new, label):
                    found.append(_finding("installHook", label, f"{label} changed: {_short(value)}"))
                elif label not in hooks_before:  # the same file, run at install or build only now
                    found.append(_finding("installHook", label, f"{label} now runs: {_short(value)}"))
            elif label not in hooks_before:
                found.append(_finding("installHook", after.path, f"{label} added: {_short(value)}"))
            elif hooks_before[label] != value:
                found.append(_finding("installHook", after.path,
                                      f"{label} changed: {_short(hooks_before[label], 60)} -> {_short(value, 60)}"))
    return found


_MAGIC = ((b"\x7fELF", "an ELF binary"), (b"\xfe\xed\xfa\xce", "a Mach-O binary"), (b"\xfe\xed\xfa\xcf", "a Mach-O binary"),
          (b"\xce\xfa\xed\xfe", "a Mach-O binary"), (b"\xcf\xfa\xed\xfe", "a Mach-O binary"), (b"\0asm", "a WebAssembly module"))


def native_kind(data: bytes) -> str | None:
    """What native binary ``data`` is, by its magic number, or None."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            return what
    if data.startswith(b"\xca\xfe\xba\xbe") and len(data) >= 8 and int.from_bytes(data[4:8], "big") < 40:
        return "a universal Mach-O binary"  # a Java class file shares the magic; its next word is a version ≥ 45
    if data.startswith(b"MZ") and len(data) >= 64:
        offset = int.from_bytes(data[60:64], "little")
        if data[offset:offset + 4] == b"PE\0\0":
            return "a Windows PE binary"
    return None


def _binaries(old: Side, new: Side, changed: list[str]) -> list[dict[str, Any]]:
    found = []
    for path in changed:
        row = new.rows[path]
        status = "added" if path not in old.rows else "changed"
        data = new.read(path) if row.binary or row.size >= 4 else None
        head = (data or b"")[:4096]
        native = native_kind(head) if row.binary or head[:2] == b"MZ" else None
        if native:
            found.append(_finding("binary", path, f"{native}, {row.size} bytes, {status}"))
        elif new.executable(path):
            first = head.split(b"\n", 1)[0][:80].decode("utf-8", "replace") if head.startswith(b"#!") else ""
            what = f"a script ({first})" if first else ("a binary file" if row.binary else "a file")
            found.append(_finding("executable", path, f"{what} with the executable bit, {status}"))
    return found


def _bins(old_m: list[Manifest], new_m: list[Manifest]) -> list[dict[str, Any]]:
    found = []
    for before, after in _paired(old_m, new_m):
        bins_before = before.bins if before is not None else {}
        for name, target in sorted(after.bins.items()):
            if name not in bins_before:
                found.append(_finding("bin", after.path, f"command {name!r} added -> {_short(target, 80)}"))
            elif bins_before[name] != target:
                found.append(_finding("bin", after.path, f"command {name!r} now runs {_short(target, 80)} "
                                                         f"(was {_short(bins_before[name], 60)})"))
    return found


def _top_key(name: str) -> str:
    """A top-level name with the version a Python wheel puts in its metadata folders taken out."""
    for suffix in (".dist-info", ".data"):
        if name.endswith(suffix):
            return name.split("-", 1)[0].lower() + suffix
    return name


def _layout(old: Side, new: Side) -> list[dict[str, Any]]:
    before = {_top_key(p.split("/", 1)[0]) for p in old.rows}
    counts: dict[str, int] = {}
    for path in new.rows:
        top = path.split("/", 1)[0]
        if _top_key(top) not in before:
            counts[top] = counts.get(top, 0) + 1
    found = []
    for top, count in sorted(counts.items()):
        if top in new.rows:
            found.append(_finding("layout", top, "a new file at the top level"))
        else:
            found.append(_finding("layout", top + "/", f"a new top-level directory ({count} file{'s' * (count != 1)})"))
    return found


def _license_files(side: Side) -> dict[str, str]:
    out = {}
    for path in side.rows:
        parts = path.split("/")
        base = parts[-1].lower()
        in_metadata = len(parts) > 1 and parts[0].endswith(".dist-info")
        if (len(parts) == 1 or in_metadata) and base.startswith(_LICENSE_NAMES):
            out["/".join([_top_key(parts[0])] + parts[1:]) if in_metadata else path] = path
    return out


def _normal(text: str | None) -> str:
    import re

    return re.sub(r"[\d\s,.()©-]+|copyright|\(c\)", "", (text or "").lower())


def _licenses(old: Side, new: Side, old_m: list[Manifest], new_m: list[Manifest]) -> list[dict[str, Any]]:
    found = []
    for before, after in _paired(old_m, new_m):
        if before is not None and (before.license or "") != (after.license or ""):
            found.append(_finding("license", after.path, f"declared license {before.license or 'none'!s} -> "
                                                         f"{after.license or 'none'}"))
    files_old, files_new = _license_files(old), _license_files(new)
    for key in sorted(files_old.keys() | files_new.keys()):
        if key not in files_old:
            if files_old:  # a first license file where there was none elsewhere is a license change too
                found.append(_finding("license", files_new[key], "a new license file"))
            else:
                found.append(_finding("license", files_new[key], "a license file where the previous version had none"))
        elif key not in files_new:
            found.append(_finding("license", files_old[key], "the license file was removed"))
        elif _normal(old.text(files_old[key])) != _normal(new.text(files_new[key])):
            found.append(_finding("license", files_new[key], "the license text changed beyond its years and spacing"))
    return found


def entropy(data: bytes) -> float:
    """Shannon entropy of ``data`` in bits per byte."""
    if not data:
        return 0.0
    counts = [0] * 256
    for byte in data:
        counts[byte] += 1
    total = len(data)
    return -sum(c / total * math.log2(c / total) for c in counts if c)


def packed(data: bytes | None) -> str | None:
    """Why ``data`` looks minified or packed, or None."""
    if not data or len(data) < 512:
        return None
    longest = max(map(len, data.split(b"\n")))
    bits = entropy(data[:1 << 20])
    reasons = []
    if longest > LONG_LINE:
        reasons.append(f"a line of {longest} characters")
    if bits > ENTROPY:
        reasons.append(f"{bits:.1f} bits of entropy per byte")
    return " and ".join(reasons) or None


def _minified(old: Side, new: Side, changed: list[str]) -> list[dict[str, Any]]:
    found = []
    for path in changed:
        row = new.rows[path]
        if row.binary or not path.lower().endswith(SCRIPT_SUFFIXES):
            continue
        why = packed(new.read(path))
        if why and (path not in old.rows or not packed(old.read(path))):
            status = "added" if path not in old.rows else "changed from readable source"
            found.append(_finding("minified", path, f"{why}, {status}"))
    return found
