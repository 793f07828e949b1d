"""Targets: the CLI spec grammar, dual addressing (SPEC §2.1) and the resolved records.

A target is a registry package (``registry`` + ``package_name`` [+ ``version``]) XOR a git
repository (``repo_url`` [+ ``git_ref``]). The CLI spells the first as
``REGISTRY:NAME[@VERSION]`` and the second with ``--repo-url URL [--git-ref REF]``.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .errors import CodenavError, invalid

REGISTRIES = ("npm", "pypi")
DEFAULT_WAIT_MS = 20000
MAX_WAIT_MS = 60000
# The maxLength of schemas/defs.json, enforced here too: CLI arguments do not go through the
# schema, and an over-long value must be refused before it reaches a URL or git.
MAX_NAME, MAX_VERSION, MAX_REPO_URL, MAX_GIT_REF, MAX_PATH = 214, 256, 2048, 1024, 4096
_NPM_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9._~-][a-z0-9._~-]*$", re.IGNORECASE)
_PYPI_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_!-]*$")


class PackageTarget(NamedTuple):
    registry: str
    name: str  # npm: as given; pypi: PEP 503-normalised
    version: str | None


class GitTarget(NamedTuple):
    repo_url: str
    git_ref: str | None


Target = PackageTarget | GitTarget


class Artifact(NamedTuple):
    """One downloadable, hash-pinned artifact: what a package target resolves to."""

    registry: str
    name: str
    version: str
    filename: str
    url: str
    algorithm: str  # sha512 | sha256 | sha1
    digest: str  # hex
    fmt: str  # tar | zip
    strip_components: int = 0
    required_prefix: str | None = None
    headers: dict[str, str] | None = None  # auth for the download; never part of the identity

    @property
    def key(self) -> str:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", self.name.replace("/", "__"))
        return f"{self.registry}/{safe}/{_safe(self.version)}-{self.digest[:16]}"

    def echo(self) -> dict[str, Any]:
        return {"registry": self.registry, "name": self.name, "version": self.version, "artifact": self.filename}


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", text)[:100]


def short_hash(text: str) -> str:
    """A stable 32-hex-digit name for a string (cache file names)."""
    try:  # the builtin module loads in microseconds; hashlib pulls in OpenSSL (warm path)
        from _sha256 import sha256
    except ImportError:
        from hashlib import sha256
    return sha256(text.encode("utf-8")).hexdigest()[:32]


def git_key(repo_url: str, commit: str) -> str:
    return f"git/{short_hash(repo_url)[:16]}/{commit}"


def pep503(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_spec(spec: str) -> dict[str, Any]:
    """``npm:express@4.21.2`` -> ``{"registry": "npm", "package_name": "express", "version": "4.21.2"}``."""
    registry, sep, rest = spec.partition(":")
    if not sep or registry not in REGISTRIES:
        raise invalid(
            f"{spec!r} is not a package spec; use REGISTRY:NAME[@VERSION] with REGISTRY one of "
            f"{', '.join(REGISTRIES)} (e.g. npm:express@4.21.2), or --repo-url for a git repository",
            "spec",
        )
    # A scoped npm name starts with '@'; the version separator is the last '@' after it.
    at = rest.rfind("@")
    if at > 0:
        # An empty version ("pypi:a@") is passed on, not refused here: from_args refuses it as
        # MCP's version "" is refused, so both surfaces give one envelope (SPEC §4 parity).
        name, version = rest[:at], rest[at + 1:]
    else:
        name, version = rest, None
    args: dict[str, Any] = {"registry": registry, "package_name": name}
    if version is not None:
        args["version"] = version
    return args


def looks_like_spec(text: str) -> bool:
    return any(text.startswith(f"{r}:") for r in REGISTRIES)


def from_args(args: dict[str, Any]) -> Target:
    """The target named by MCP-style arguments, enforcing the XOR of SPEC §2.1."""
    has_package = any(args.get(k) is not None for k in ("registry", "package_name", "version"))
    has_git = any(args.get(k) is not None for k in ("repo_url", "git_ref"))
    if has_package and has_git:
        raise invalid(
            "give either registry + package_name (+ version) or repo_url (+ git_ref), not both", "repo_url"
        )
    if has_git:
        url = args.get("repo_url")
        if url is None:
            raise invalid("git_ref needs repo_url", "repo_url")
        if not url.strip():  # not "git_ref needs repo_url": the caller did give one
            raise invalid("repo_url must not be empty", "repo_url")
        if len(url) > MAX_REPO_URL:
            raise invalid(f"repo_url is {len(url)} characters long; at most {MAX_REPO_URL} are accepted", "repo_url")
        ref = args.get("git_ref")
        if ref is not None and (not ref.strip() or any(c in ref for c in "\0\n\r") or len(ref) > MAX_GIT_REF):
            raise invalid("git_ref must be a branch, tag or commit name", "git_ref")
        return GitTarget(url, ref)
    if not has_package:
        raise invalid("name a target: registry + package_name (+ version), or repo_url (+ git_ref)", "package_name")
    registry, name, version = args.get("registry"), args.get("package_name"), args.get("version")
    if registry not in REGISTRIES:
        raise invalid(f"registry must be one of {', '.join(REGISTRIES)}", "registry")
    if not name:
        raise invalid("package_name is required with registry", "package_name")
    if len(name) > MAX_NAME:  # checked first: the messages below quote the name
        raise invalid(f"package_name is {len(name)} characters long; at most {MAX_NAME} are accepted",
                      "package_name")
    if registry == "npm":
        if not _NPM_NAME.match(name) or "/" in name.lstrip("@").split("/", 1)[-1]:
            raise invalid(f"{name!r} is not a valid npm package name", "package_name")
    else:
        if not _PYPI_NAME.match(name):
            raise invalid(f"{name!r} is not a valid PyPI project name", "package_name")
        name = pep503(name)
    if version is not None and len(version) > MAX_VERSION:
        raise invalid(f"version is {len(version)} characters long; at most {MAX_VERSION} are accepted", "version")
    if version is not None and not _VERSION.match(version):
        raise invalid(f"{version!r} is not a valid version", "version")
    return PackageTarget(registry, name, version)


def wait_ms(args: dict[str, Any]) -> int:
    value = args.get("wait_timeout_ms", DEFAULT_WAIT_MS)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_WAIT_MS:
        raise invalid(f"wait_timeout_ms must be an integer from 0 to {MAX_WAIT_MS}", "wait_timeout_ms")
    return value


def validate_path(path: Any, field: str = "path") -> str:
    """SPEC §2.2: relative, '/'-separated, no empty/'.'/'..' segments, no NUL, no leading '/'."""
    if not isinstance(path, str) or not path:
        raise invalid(f"{field} must be a non-empty relative path", field)
    if len(path) > MAX_PATH:  # before the messages below, which quote the path
        raise invalid(f"{field} is {len(path)} characters long; at most {MAX_PATH} are accepted", field)
    if "\0" in path:
        raise invalid(f"{field} must not contain a NUL byte", field)
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
        # Archive entries with such names are skipped at extraction (SPEC §2.2): no listed path
        # holds one, so this is a mistake to name, not a file to look for.
        raise invalid(f"{field} must not contain control characters (newline, tab, …): {path!r}", field)
    if path.startswith("/"):
        raise invalid(f"{field} must be relative (no leading '/'): {path!r}", field)
    if "\\" in path:
        raise invalid(f"{field} uses '/' as separator, not '\\': {path!r}", field)
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            raise invalid(f"{field} must not contain empty, '.' or '..' segments: {path!r}", field)
    return path


# --- CLI adapter shared by the target tools -----------------------------------------------

def add_cli_options(parser: Any) -> None:
    parser.add_argument("--repo-url", metavar="URL", help="a git repository instead of a registry SPEC")
    parser.add_argument("--git-ref", metavar="REF", help="branch, tag or commit of --repo-url (default: HEAD)")
    parser.add_argument(
        "--wait", metavar="MS", default=None,  # parsed by cli_int: a bad value is INVALID_ARGUMENT
        help=f"wait up to MS ms for a package not yet cached (0-{MAX_WAIT_MS}, default {DEFAULT_WAIT_MS})",
    )


def cli_int(text: str, flag: str, field: str) -> int:
    """An integer option's value, or INVALID_ARGUMENT naming the argument.

    Not argparse's ``type=int``: that makes ``--wait soon`` a usage error (exit 2, no JSON
    envelope) while ``--wait -5`` is an INVALID_ARGUMENT; a bad value is one kind of mistake,
    answered like every other bad argument (SPEC §4).
    """
    try:
        return int(text)
    except ValueError:
        raise invalid(f"{flag} takes a whole number, got {text!r}", field) from None


def cli_target(ns: Any, operands: list[str], usage: str) -> tuple[dict[str, Any], list[str]]:
    """Split positionals into the target arguments and the tool's own operands.

    Without --repo-url the first operand is SPEC. With it, a first operand that looks like a
    spec is refused: it would otherwise be taken silently as a path (SPEC §2.1).
    """
    args: dict[str, Any] = {}
    if ns.wait is not None:
        args["wait_timeout_ms"] = cli_int(ns.wait, "--wait", "wait_timeout_ms")
    if ns.repo_url is not None:
        if operands and looks_like_spec(operands[0]):
            raise invalid(
                f"{operands[0]!r} looks like a package spec, but --repo-url was given; "
                "use either SPEC or --repo-url, not both",
                "spec",
            )
        args["repo_url"] = ns.repo_url
        if ns.git_ref is not None:
            args["git_ref"] = ns.git_ref
        rest = operands
    else:
        if ns.git_ref is not None:
            raise invalid("--git-ref needs --repo-url", "git_ref")
        if not operands:
            raise invalid(f"missing SPEC; usage: {usage}", "spec")
        args.update(parse_spec(operands[0]))
        rest = operands[1:]
    return args, rest


__all__ = [
    "Artifact", "GitTarget", "PackageTarget", "Target", "CodenavError", "from_args", "parse_spec",
    "validate_path", "wait_ms", "git_key", "pep503", "add_cli_options", "cli_target", "cli_int",
]
