"""Targets: the CLI spec grammar, dual addressing (SPEC §2.1) and the resolved records.

A target is a registry package (``registry`` + ``package_name`` [+ ``version``]) XOR a git
repository (``repo_url`` [+ ``git_ref``]). The CLI spells the first as
``REGISTRY:NAME[@VERSION]`` and the second with ``--repo-url URL [--git-ref REF]``.
"""

from __future__ import annotations

from . import registries
from .errors import CodenavError, invalid
from .paths import short_hash
from .registries.base import is_plain_version as _is_version

# Annotations only: `typing` and `re` cost more to import than a warm call may spend (SPEC §7
# benchmarks), so this module uses neither at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REGISTRIES = registries.names()
DEFAULT_WAIT_MS = 20000
MAX_WAIT_MS = 60000
# The maxLength of schemas/defs.json, enforced here too: CLI arguments do not go through the
# schema, and an over-long value must be refused before it reaches a URL or git.
MAX_NAME, MAX_VERSION, MAX_REPO_URL, MAX_GIT_REF, MAX_PATH = 214, 256, 2048, 1024, 4096
MAX_ARTIFACT = 255
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


class PackageTarget:
    """A registry package; ``name`` as its registry keys it (npm: as given; PyPI: PEP 503)."""

    __slots__ = ("registry", "name", "version", "artifact")

    def __init__(self, registry: str, name: str, version: str | None, artifact: str | None = None) -> None:
        # artifact: which file of the release ("sdist", "wheel", a file name); None: the registry's choice
        self.registry, self.name, self.version, self.artifact = registry, name, version, artifact

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PackageTarget) and (self.registry, self.name, self.version, self.artifact) == (
            other.registry, other.name, other.version, other.artifact)

    def __hash__(self) -> int:
        return hash((self.registry, self.name, self.version, self.artifact))

    def __repr__(self) -> str:
        return f"PackageTarget({self.registry!r}, {self.name!r}, {self.version!r}, {self.artifact!r})"


class GitTarget:
    """A git repository and the ref asked for (None: the remote's HEAD)."""

    __slots__ = ("repo_url", "git_ref")

    def __init__(self, repo_url: str, git_ref: str | None) -> None:
        self.repo_url, self.git_ref = repo_url, git_ref

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitTarget) and (self.repo_url, self.git_ref) == (other.repo_url, other.git_ref)

    def __hash__(self) -> int:
        return hash((self.repo_url, self.git_ref))

    def __repr__(self) -> str:
        return f"GitTarget({self.repo_url!r}, {self.git_ref!r})"


Target = PackageTarget | GitTarget


def git_key(repo_url: str, commit: str) -> str:
    return f"git/{short_hash(repo_url)[:16]}/{commit}"


def parse_spec(spec: str) -> dict[str, Any]:
    """``npm:express@4.21.2`` -> ``{"registry": "npm", "package_name": "express", "version": "4.21.2"}``."""
    prefix, sep, rest = spec.partition(":")
    registry = registries.canonical(prefix)
    if not sep or registry is None:
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
    elif registry == "pypi" and any(c in rest for c in "<>=!~(["):
        # The PEP 508 spelling pip users type: pypi:requests>=2.30,<2.32, pypi:requests==2.32.3.
        from .registries.pep440 import split_requirement

        name, version = split_requirement(rest)
        version = version or None
    else:
        name, version = rest, None
        _refuse_pip_pin(prefix, name)
    args: dict[str, Any] = {"registry": registry, "package_name": name}
    if version is not None:
        args["version"] = version
    return args


# --- compact targets: one string for the seed's addressing fields (SPEC §2.1) -----------------

GITHUB_URL = "https://github.com/"
# The seed's fields a ``target`` string stands for; giving both is a mistake.
TARGET_FIELDS = ("registry", "package_name", "version", "repo_url", "git_ref")
_GITHUB_NAME = _ALNUM | frozenset("._-")


def parse_target(text: Any, *, versioned: bool = True) -> dict[str, Any]:
    """``target`` -> the seed's fields: ``npm:express@4.21.2`` (the CLI's SPEC grammar),
    ``github:owner/repo[@ref]`` and ``git:URL[#ref]``; INVALID_ARGUMENT on ``target`` else.

    ``versioned`` False (diff_versions, which takes its versions beside the target) refuses
    a version or ref in the string.
    """
    if not isinstance(text, str) or not text.strip():
        raise invalid("target must be a non-empty string such as 'npm:express@4.21.2' or 'github:owner/repo'",
                      "target")
    kind, sep, rest = text.partition(":")
    if sep and kind == "github":
        repo, at, ref = rest.partition("@")
        owner, slash, name = repo.partition("/")
        if not (slash and owner and name and set(owner + name) <= _GITHUB_NAME and not name.endswith(".git")
                and name not in (".", "..") and (ref or not at)):
            raise invalid(f"target {text[:60]!r} is not github:OWNER/NAME[@REF]", "target")
        args: dict[str, Any] = {"repo_url": GITHUB_URL + repo}
        if ref:
            args["git_ref"] = ref
    elif sep and kind == "git":
        url, hash_, ref = rest.rpartition("#") if "#" in rest else (rest, "", "")
        if not url.strip() or (hash_ and not ref):
            raise invalid(f"target {text[:60]!r} is not git:URL[#REF]", "target")
        args = {"repo_url": url}
        if ref:
            args["git_ref"] = ref
    else:
        try:
            args = parse_spec(text)
        except CodenavError as exc:
            if exc.details.get("field") != "spec":
                raise
            raise invalid(exc.message.replace("--repo-url for a git repository",
                                              "github:OWNER/NAME or git:URL for a git repository"),
                          "target", **{k: v for k, v in exc.details.items() if k not in ("field", "action")}) from None
    if not versioned and ("version" in args or "git_ref" in args):
        raise invalid("target names the package or repository only: give the versions as from_version and "
                      "to_version (or from_ref and to_ref)", "target")
    return args


def expand_target(args: dict[str, Any], *, versioned: bool = True) -> dict[str, Any]:
    """``args`` with a ``target`` string replaced by the seed's fields it stands for, so the
    two addressings give byte-identical answers; ``target`` beside any of them is refused."""
    if "target" not in args:
        return args
    given = [key for key in TARGET_FIELDS if args.get(key) is not None]
    if given:
        raise invalid(f"give target or {given[0]}, not both: target stands for registry + package_name + version "
                      "(or repo_url + git_ref)", "target")
    rest = {key: value for key, value in args.items() if key != "target"}
    return {**parse_target(args["target"], versioned=versioned), **rest}


def _refuse_pip_pin(prefix: str, name: str) -> None:
    """``pypi:requests==2.32.3`` (pip's spelling of a pin): refused with the spec meant.

    Only the exact pin ``==``; the versions work may later accept PEP 508 forms here.
    """
    project, equals, version = name.partition("==")
    if equals and project.strip() and version.strip() and "=" not in version:
        meant = f"{prefix}:{project.strip()}@{version.strip()}"
        raise invalid(f"{prefix}:{name} is not a package spec: the version follows '@'", "spec",
                      suggestion=meant)


def looks_like_spec(text: str) -> bool:
    prefix, sep, _ = text.partition(":")
    return bool(sep) and registries.canonical(prefix) is not None


def from_args(args: dict[str, Any]) -> Target:
    """The target named by MCP-style arguments, enforcing the XOR of SPEC §2.1."""
    has_package = any(args.get(k) is not None for k in ("registry", "package_name", "version"))
    has_git = any(args.get(k) is not None for k in ("repo_url", "git_ref"))
    artifact = args.get("artifact")
    if artifact is not None and has_git:
        raise invalid("artifact chooses a file of a registry release; a git target has none", "artifact")
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
    name = registries.load(registry).normalize_name(name)
    if version is not None and len(version) > MAX_VERSION:
        raise invalid(f"version is {len(version)} characters long; at most {MAX_VERSION} are accepted", "version")
    if version is not None and not _is_version(version):
        # Not a plain version: a range or specifier set (npm:react@^18, pypi:x@>=2,<3), which
        # the registry's own grammar decides; control characters are never part of one.
        if not version.strip() or any(ord(c) < 0x20 or ord(c) == 0x7F for c in version):
            raise invalid(f"{version!r} is not a valid version", "version")
        registries.load(registry).classify_version(version)
    if artifact is not None:
        module = registries.load(registry)
        if not module.ARTIFACT_WORDS:
            raise invalid(f"artifact is for registries whose releases hold several files (pypi); "
                          f"a {registry} release is one file", "artifact")
        if (not isinstance(artifact, str) or not artifact or len(artifact) > MAX_ARTIFACT
                or any(c in artifact for c in "/\\\0") or any(ord(c) < 0x20 for c in artifact)):
            raise invalid(f"artifact must be {' or '.join(repr(w) for w in module.ARTIFACT_WORDS)} "
                          f"or a file name of the release (at most {MAX_ARTIFACT} characters)", "artifact")
    return PackageTarget(registry, name, version, artifact)


PROJECT_VARIABLE = "CODENAV_PROJECT_DIR"


def project_start(args: dict[str, Any]) -> str | None:
    """Where to look for the project's lockfile, or None when that is turned off.

    ``project_dir`` (MCP; CLI ``--project DIR``, ``--no-project`` = "") wins, then
    CODENAV_PROJECT_DIR, then the working directory (MCP clients start servers in the
    project). An empty string turns the lookup off.
    """
    import os

    given = args.get("project_dir")
    if given is None:
        given = os.environ.get(PROJECT_VARIABLE)
    if given is None:
        return os.getcwd()
    if not isinstance(given, str) or len(given) > MAX_PATH or "\0" in given:
        raise invalid(f"project_dir must be a directory path of at most {MAX_PATH} characters", "project_dir")
    return os.path.abspath(given) if given else None


def project_dir(args: dict[str, Any]) -> str:
    """The project directory whose lockfiles list_deps and ``deps`` read: ``project_dir``, else
    CODENAV_PROJECT_DIR, else the working directory; never turned off (unlike project_start)."""
    import os

    given = args.get("project_dir")
    if given is None:
        given = os.environ.get(PROJECT_VARIABLE) or os.getcwd()  # "" turns version lookups off, not this
    if not isinstance(given, str) or not given or len(given) > MAX_PATH or "\0" in given:
        raise invalid(f"project_dir must be a directory path of 1 to {MAX_PATH} characters", "project_dir")
    return os.path.abspath(given)


def version_source(target: PackageTarget, args: dict[str, Any]) -> tuple[PackageTarget, dict[str, Any], list[str], list[str]]:
    """(the target to open, its ``versionSource``, other locked versions, warnings).

    A version that was asked for is kept and classified (exact, range, tag); with none, the
    project's lockfile (then its installed copy) names it, else the registry's latest.
    """
    registry = registries.load(target.registry)
    if target.version is not None:
        kind = registry.classify_version(target.version)
        return target, {"kind": kind, "spec": target.version}, [], []
    start = project_start(args)
    if start is None:
        return target, {"kind": "latest"}, [], []
    from .lockfiles import find_locked

    skipped: list[str] = []
    locked = find_locked(target.registry, target.name, start, skipped)
    if locked is None:
        return target, {"kind": "latest"}, [], skipped
    if locked.version is None:
        # Never the registry's latest silently: the project does not run a registry copy.
        where = f" ({locked.ref})" if locked.ref else ""
        action = ("read that commit with repo_url + git_ref (CLI: --repo-url URL --git-ref COMMIT)"
                  if locked.source == "git" else "read the local copy directly, or name a version")
        raise invalid(f"{locked.file} locks {target.name} as a {locked.source} copy{where}, not a registry "
                      "version; name a version to read one from the registry", "version", action=action,
                      lockfile=locked.file)
    name = registry.normalize_name(locked.name) if locked.name else target.name
    source = {"kind": locked.kind, "file": locked.file, "entry": locked.entry}
    return PackageTarget(target.registry, name, locked.version, target.artifact), source, list(locked.other_versions), list(locked.warnings)


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


def path_prefix(raw: Any) -> str | None:
    """A tool's ``path_prefix``: None, or a relative directory prefix without its trailing '/'."""
    if raw is None:
        return None
    if not isinstance(raw, str) or raw.startswith("/"):
        raise invalid("path_prefix must be a relative directory prefix such as 'lib' or 'src/utils'", "path_prefix")
    prefix = raw.rstrip("/")
    # Past its trailing '/', a prefix follows the rules of a path (SPEC §2.2): one holding a
    # backslash, a NUL, '//', '.' or '..' could never match a listed path, so it is a mistake
    # to name rather than an empty listing.
    return validate_path(prefix, "path_prefix") if prefix else None


# --- CLI adapter shared by the target tools (their options: grammar.TARGET) ------------------

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
    if getattr(ns, "no_project", False):
        if getattr(ns, "project", None) is not None:
            raise invalid("give --project DIR or --no-project, not both", "project_dir")
        args["project_dir"] = ""
    elif getattr(ns, "project", None) is not None:
        args["project_dir"] = ns.project
    if getattr(ns, "artifact", None) is not None:
        args["artifact"] = ns.artifact
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
        spec = operands[0]
        # github:OWNER/NAME[@REF] and git:URL[#REF] name a repository, as MCP's target does.
        args.update(parse_target(spec) if spec.startswith(("github:", "git:")) else parse_spec(spec))
        rest = operands[1:]
    return args, rest


__all__ = [
    "GitTarget", "PackageTarget", "Target", "CodenavError", "from_args", "parse_spec",
    "validate_path", "wait_ms", "git_key", "cli_target", "cli_int",
]
