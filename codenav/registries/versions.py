"""Version ordering for availableVersions: npm semver and PEP 440, newest first, nearest first.

Only ordering is needed (resolution is exact), so these keys are deliberately small: they
sort every well-formed version correctly and put anything unparseable last.
"""

from __future__ import annotations

import re

_SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")
_PEP440 = re.compile(
    r"^v?(?:(\d+)!)?(\d+(?:\.\d+)*)"
    r"(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d*))?"
    r"(?:(?:-(\d+))|(?:[-_.]?(post|rev|r)[-_.]?(\d*)))?"
    r"(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+[a-z0-9.]+)?$",
    re.IGNORECASE,
)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def semver_key(version: str) -> tuple:
    m = _SEMVER.match(version)
    if not m:
        return (0, (), 0, ())
    pre = m.group(4)
    pre_key = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")) if pre else ()
    # A release sorts after its prereleases.
    return (1, tuple(int(m.group(i)) for i in (1, 2, 3)), 0 if pre else 1, pre_key)


def semver_is_prerelease(version: str) -> bool:
    m = _SEMVER.match(version)
    return bool(m and m.group(4))


def pep440_key(version: str) -> tuple:
    m = _PEP440.match(version.strip())
    if not m:
        return (0, 0, (), (), (), ())
    epoch = int(m.group(1) or 0)
    release = tuple(int(p) for p in m.group(2).split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]  # 1.0 == 1.0.0
    pre = (_PRE[m.group(3).lower()], int(m.group(4) or 0)) if m.group(3) else None
    post_num = m.group(5) or (m.group(7) if m.group(6) else None)
    post = int(post_num or 0) if (m.group(5) or m.group(6)) else None
    dev = int(m.group(9) or 0) if m.group(8) else None
    # PEP 440 order: dev releases < pre releases < the release < post releases.
    pre_key = (-1,) if pre is None and dev is not None and post is None else ((9,) if pre is None else pre)
    post_key = (-1,) if post is None else (post,)
    dev_key = (9,) if dev is None else (0, dev)
    return (1, epoch, release, pre_key, post_key, dev_key)


def pep440_is_final(version: str) -> bool:
    m = _PEP440.match(version.strip())
    return bool(m) and not m.group(3) and not m.group(8)


def canonical_pep440(version: str) -> tuple:
    """Two spellings of one PEP 440 version compare equal (``1.0`` == ``1.0.0``)."""
    key = pep440_key(version)
    return key if key[0] else (0, version)


def nearest_first(versions: list[str], requested: str | None, key, limit: int = 20) -> list[str]:
    """Newest first; when ``requested`` parses, versions sharing more of its leading release
    numbers come first, so ``4.21.9`` suggests ``4.21.2`` before ``5.1.0``."""
    newest = sorted(set(versions), key=key, reverse=True)
    wanted = _numbers(requested) if requested else ()
    if not wanted:
        return newest[:limit]

    def shared(v: str) -> int:
        n = 0
        for a, b in zip(_numbers(v), wanted, strict=False):
            if a != b:
                break
            n += 1
        return n

    # sorted() is stable: within one "shared prefix" group the newest-first order stays.
    return sorted(newest, key=shared, reverse=True)[:limit]


def _numbers(version: str) -> tuple[int, ...]:
    m = re.match(r"^v?(\d+(?:\.\d+)*)", version or "")
    return tuple(int(p) for p in m.group(1).split(".")) if m else ()
