"""SPEC §3's limits on what one archive may expand to, and the TOO_LARGE error of each.

``Limits`` holds the three numbers (each overridable by its variable). The messages that name
a limit are built here, once: for ``Tree``, and for the tar, zip and ranged readers that check
a limit before the Tree sees a member (a zip's declared entries, a member read by range, the
member a nested archive is copied from).
"""

from __future__ import annotations

import os

from ..errors import CodenavError, too_large
from .names import quoted

# limit -> the variable that overrides it
VARIABLES = {
    "max_files": "CODENAV_MAX_FILES",
    "max_total_bytes": "CODENAV_MAX_EXTRACTED_BYTES",
    "max_file_bytes": "CODENAV_MAX_FILE_BYTES",
}


class Limits:
    """SPEC §3 limits on what one archive may expand to (immutable, compared by value)."""

    __slots__ = ("max_files", "max_total_bytes", "max_file_bytes")

    def __init__(self, max_files: int = 100_000,  # env CODENAV_MAX_FILES
                 max_total_bytes: int = 1 << 30,  # env CODENAV_MAX_EXTRACTED_BYTES
                 max_file_bytes: int = 50 << 20) -> None:  # env CODENAV_MAX_FILE_BYTES
        for name, value in (("max_files", max_files), ("max_total_bytes", max_total_bytes),
                            ("max_file_bytes", max_file_bytes)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Limits are immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Limits) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Limits(max_files={self.max_files!r}, max_total_bytes={self.max_total_bytes!r}, "
                f"max_file_bytes={self.max_file_bytes!r})")

    def _key(self) -> tuple[int, int, int]:
        return self.max_files, self.max_total_bytes, self.max_file_bytes

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, each overridden by its variable when set; a bad value is CONFIG_ERROR."""
        values: dict[str, int] = {}
        for name, variable in VARIABLES.items():
            raw = os.environ.get(variable, "").strip()
            if not raw:
                continue
            try:
                value = int(raw)
            except ValueError:
                value = 0
            if value < 1:
                raise CodenavError(
                    "CONFIG_ERROR", f"{variable} must be a positive whole number, got {raw!r}",
                    details={"variable": variable},
                )
            values[name] = value
        return cls(**values)


# The errors, each raised by its caller once a number is known to be over its limit.

def too_many_entries(limit: int, member: str) -> CodenavError:
    """Past ``max_files`` entries (files, directories and links) while extracting, at ``member``."""
    return too_large(f"the archive has more than {limit} entries (files, directories and links; "
                     f"CODENAV_MAX_FILES), at member {quoted(member)}", limit=limit, variable="CODENAV_MAX_FILES")


def too_many_declared(limit: int, count: int, verb: str = "has") -> CodenavError:
    """A zip whose central directory ``has`` (or ``declares``) more than ``max_files`` entries."""
    return too_large(f"the archive {verb} {count} entries, more than {limit} (CODENAV_MAX_FILES)",
                     limit=limit, variable="CODENAV_MAX_FILES")


def file_too_large(limit: int, member: str) -> CodenavError:
    """``member`` over the per-file limit."""
    return too_large(f"archive member {quoted(member)} is over the {limit}-byte limit for one file "
                     "(CODENAV_MAX_FILE_BYTES)", limit=limit, variable="CODENAV_MAX_FILE_BYTES")


def total_too_large(limit: int, member: str) -> CodenavError:
    """The archive's extracted bytes past ``max_total_bytes``, at ``member``."""
    return too_large(f"the archive expands to more than {limit} bytes (CODENAV_MAX_EXTRACTED_BYTES), "
                     f"at member {quoted(member)}", limit=limit, variable="CODENAV_MAX_EXTRACTED_BYTES")


def inner_too_large(limit: int, member: str) -> CodenavError:
    """The member a nested archive is copied from (archive.extract_member) over ``max_total_bytes``."""
    return too_large(f"the archive's {quoted(member)} is larger than the extracted-bytes limit",
                     limitBytes=limit, variable="CODENAV_MAX_EXTRACTED_BYTES")
