"""The wheel tags this machine accepts, best first, computed with the stdlib (SPEC §3).

``sys_tags(machine)`` is the list pip ranks wheels by (packaging's ``sys_tags``): the
interpreter's own ABIs on each platform, then ``abi3`` (not on free-threaded builds, which
cannot load the stable ABI), then ``none``, then older ``abi3`` versions down to 3.2, then the
``py*`` tags on each platform and finally ``*-none-any``. The platforms are manylinux (the
running glibc down to 2.17, or 2.5 on x86), musllinux, then ``linux_<arch>`` on Linux; the
macOS releases down to 10.4 in their binary formats; ``sysconfig.get_platform()`` elsewhere.

Every input is a field of ``Machine``, so a test (or a later ``--platform`` option) can ask
for another machine: ``Machine.here()`` reads the running one (os.confstr for glibc, the
interpreter's ELF header for musl and 32-bit builds, ``platform.mac_ver`` on macOS).
``wheel_tags(filename)`` expands a wheel name's dot-compressed tag sets.

Only ``os`` is imported at load, as in every registry module: this one is imported by
``pypi.resolve`` on the indexer side only.
"""

from __future__ import annotations

import os

# glibc versions kept as the x86 floor: PEP 513's manylinux1 is glibc 2.5.
_LEGACY_MANYLINUX = {(2, 17): "manylinux2014", (2, 12): "manylinux2010", (2, 5): "manylinux1"}
_MANYLINUX_ARCHES = frozenset({"x86_64", "aarch64", "ppc64", "ppc64le", "s390x", "riscv64", "loongarch64"})
_LAST_GLIBC_MINOR = 50  # a future glibc 3 is assumed compatible with every 2.x, as packaging does


class Machine:
    """What the tag list depends on; ``here()`` reads the running interpreter and OS."""

    __slots__ = ("implementation", "version", "abis", "system", "platform", "glibc", "musl", "mac", "arch",
                 "free_threaded")

    def __init__(self, *, implementation: str = "cp", version: tuple[int, int] = (3, 11),
                 abis: list[str] | None = None, system: str = "linux", platform: str = "linux_x86_64",
                 glibc: tuple[int, int] | None = None, musl: tuple[int, int] | None = None,
                 mac: tuple[int, int] | None = None, arch: str | None = None,
                 free_threaded: bool = False) -> None:
        self.implementation, self.version, self.system, self.platform = implementation, version, system, platform
        self.glibc, self.musl, self.mac, self.free_threaded = glibc, musl, mac, free_threaded
        nodot = f"{version[0]}{version[1]}"
        self.abis = list(abis) if abis is not None else [f"cp{nodot}{'t' if free_threaded else ''}"]
        self.arch = arch if arch is not None else platform.split("_", 1)[-1]

    @classmethod
    def here(cls) -> Machine:
        import sys
        import sysconfig

        name = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name)
        version = sys.version_info[:2]
        free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
        plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, "linux" if sys.platform.startswith("linux") else sys.platform)
        elf = _elf_header(sys.executable) if system == "linux" else None
        if system == "linux" and elf is not None and elf["bits"] == 32:
            plat = {"linux_x86_64": "linux_i686", "linux_aarch64": "linux_armv7l"}.get(plat, plat)
        glibc = musl = mac = None
        arch = None
        if system == "linux":
            glibc = _glibc_version()
            if glibc is None and elf is not None and elf.get("interp"):
                musl = _musl_version(elf["interp"])
            arch = plat.split("_", 1)[-1]
            if arch == "i686" and (elf is None or elf["machine"] != 3):  # EM_386
                glibc = None
            if arch == "armv7l" and (elf is None or elf["machine"] != 40 or not elf["hard_float"]):  # EM_ARM
                glibc = None
        if system == "macos":
            import platform

            reported, _, cpu = platform.mac_ver()
            mac = mac_version(reported)
            arch = cpu if struct_pointer_bits() == 64 else ("ppc" if cpu.startswith("ppc") else "i386")
        return cls(implementation=name, version=version, abis=_abis(name, version, free_threaded), system=system,
                   platform=plat, glibc=glibc, musl=musl, mac=mac, arch=arch, free_threaded=free_threaded)


def struct_pointer_bits() -> int:
    import struct

    return struct.calcsize("P") * 8


def _abis(name: str, version: tuple[int, int], free_threaded: bool) -> list[str]:
    """The interpreter's own ABI tags, best first (``cp313t``; a debug build adds ``d`` and
    also loads the plain ABI)."""
    import sys
    import sysconfig

    if name != "cp":
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ""
        parts = suffix.split(".")
        return [parts[1].replace("-", "_").replace(".", "_")] if len(parts) >= 3 else []
    nodot = f"{version[0]}{version[1]}"
    threading = "t" if free_threaded else ""
    debug_var = sysconfig.get_config_var("Py_DEBUG")
    from importlib.machinery import EXTENSION_SUFFIXES

    debug = debug_var or (debug_var is None and (hasattr(sys, "gettotalrefcount") or "_d.pyd" in EXTENSION_SUFFIXES))
    if debug:
        return [f"cp{nodot}{threading}d", f"cp{nodot}{threading}"]
    return [f"cp{nodot}{threading}"]


def mac_version(reported: str, ask: object = None) -> tuple[int, int]:
    """macOS as (major, minor); a Python built against an old SDK reports 11+ as "10.16", so it
    is asked again with SYSTEM_VERSION_COMPAT=0 (``ask`` stands in for that in tests)."""
    version = _pair(reported)
    if version == (10, 16):
        if ask is None:
            import sys

            from ..proc import NotStarted, OverCap, TimedOut, run

            env = {**os.environ, "SYSTEM_VERSION_COMPAT": "0"}
            try:
                done = run([sys.executable, "-sS", "-c", "import platform; print(platform.mac_ver()[0])"],
                           30.0, cap=4096, env=env)
                answer = done.stdout.decode("ascii", "replace") if done.returncode == 0 else None
            except (TimedOut, OverCap, NotStarted):
                answer = None
        else:
            answer = ask()  # type: ignore[operator]
        version = _pair((answer or "").strip()) if answer else version
    return version


def _pair(text: str) -> tuple[int, int]:
    parts = (text.split(".") + ["0"])[:2]
    try:
        return int(parts[0]), int(parts[1])
    except ValueError:
        return (10, 0)


def _glibc_version() -> tuple[int, int] | None:
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"
    except (AttributeError, OSError, ValueError):
        text = None
    if not text:
        try:
            import ctypes

            getter = ctypes.CDLL(None).gnu_get_libc_version
            getter.restype = ctypes.c_char_p
            text = "glibc " + getter().decode("ascii")
        except (OSError, AttributeError, ImportError):
            return None
    kind, _, number = text.partition(" ")
    major, _, minor = number.partition(".")
    if kind != "glibc" or not major.isdigit():
        return None
    digits = "".join(c for c in minor if c.isdigit()) or "0"
    return int(major), int(digits) if minor[:1].isdigit() else 0


def _elf_header(path: str) -> dict | None:
    """Class, machine, hard-float flag and PT_INTERP of an ELF file; None if it is not one."""
    import struct

    try:
        with open(path, "rb") as handle:
            ident = handle.read(16)
            if ident[:4] != b"\x7fELF" or ident[4] not in (1, 2) or ident[5] not in (1, 2):
                return None
            bits = 32 if ident[4] == 1 else 64
            end = "<" if ident[5] == 1 else ">"
            head = handle.read(36 if bits == 32 else 48)
            if bits == 32:
                _, machine, _, _, phoff, _, flags, _, phentsize, phnum = struct.unpack(end + "HHIIIIIHHH", head[:30])
            else:
                _, machine, _, _, phoff, _, flags, _, phentsize, phnum = struct.unpack(end + "HHIQQQIHHH", head[:42])
            interp = None
            for index in range(min(phnum, 64)):
                handle.seek(phoff + index * phentsize)
                entry = handle.read(phentsize)
                if bits == 32:
                    kind, offset, _, _, size = struct.unpack(end + "IIIII", entry[:20])
                else:
                    kind, _, offset, _, _, size = struct.unpack(end + "IIQQQQ", entry[:40])
                if kind == 3:  # PT_INTERP
                    handle.seek(offset)
                    interp = handle.read(min(size, 4096)).rstrip(b"\0").decode("utf-8", "replace")
                    break
    except (OSError, struct.error):
        return None
    hard_float = machine == 40 and bool(flags & 0x400)  # EF_ARM_ABI_FLOAT_HARD
    return {"bits": bits, "machine": machine, "hard_float": hard_float, "interp": interp}


def _musl_version(interp: str) -> tuple[int, int] | None:
    """musl's loader prints "Version 1.2.3" when run without arguments."""
    if "musl" not in os.path.basename(interp):
        return None
    from ..proc import NotStarted, OverCap, TimedOut, run

    try:
        result = run([interp], 10.0, cap=4096)
    except (TimedOut, OverCap, NotStarted):
        return None  # no musl version means no musllinux tags, not a failure
    text = result.stderr + result.stdout
    for line in text.decode("utf-8", "replace").splitlines():
        if line.startswith("Version "):
            return _pair(line.split()[1])
    return None


# --- the tag list ------------------------------------------------------------------------------

def manylinux_platforms(arch: str, glibc: tuple[int, int] | None) -> list[str]:
    """``manylinux_2_N_<arch>`` from ``glibc`` down, each legacy alias right after its version."""
    if glibc is None or not (arch in _MANYLINUX_ARCHES or arch in ("i686", "armv7l")):
        return []
    floor = (2, 5) if arch in ("x86_64", "i686") else (2, 17)
    veto = _manylinux_veto()
    out: list[str] = []
    versions = [(glibc[0], m) for m in range(glibc[1], -1, -1)]
    for major in range(glibc[0] - 1, 1, -1):
        versions += [(major, m) for m in range(_LAST_GLIBC_MINOR, -1, -1)]
    for version in versions:
        if version < floor:
            break
        if veto is None or veto(version, arch):
            out.append(f"manylinux_{version[0]}_{version[1]}_{arch}")
            if version in _LEGACY_MANYLINUX:
                out.append(f"{_LEGACY_MANYLINUX[version]}_{arch}")
    return out


def _manylinux_veto():
    """A distribution's ``_manylinux`` module may declare what it is not compatible with (PEP 600)."""
    try:
        import _manylinux  # type: ignore[import-not-found]
    except ImportError:
        return None
    hook = getattr(_manylinux, "manylinux_compatible", None)

    def compatible(version: tuple[int, int], arch: str) -> bool:
        if hook is not None:
            answer = hook(version[0], version[1], arch)
            if answer is not None:
                return bool(answer)
            return True
        legacy = {(2, 5): "manylinux1_compatible", (2, 12): "manylinux2010_compatible",
                  (2, 17): "manylinux2014_compatible"}.get(version)
        return bool(getattr(_manylinux, legacy, True)) if legacy else True

    return compatible


def musllinux_platforms(arch: str, musl: tuple[int, int] | None) -> list[str]:
    if musl is None:
        return []
    return [f"musllinux_{musl[0]}_{minor}_{arch}" for minor in range(musl[1], -1, -1)]


def _mac_formats(version: tuple[int, int], arch: str) -> list[str]:
    formats = [arch]
    if arch == "x86_64":
        if version < (10, 4):
            return []
        formats += ["intel", "fat64", "fat32"]
    elif arch == "i386":
        if version < (10, 4):
            return []
        formats += ["intel", "fat32", "fat"]
    elif arch == "ppc64":
        if not (10, 4) <= version <= (10, 5):
            return []
        formats.append("fat64")
    elif arch == "ppc":
        if version > (10, 6):
            return []
        formats += ["fat32", "fat"]
    if arch in ("arm64", "x86_64"):
        formats.append("universal2")
    if arch in ("x86_64", "i386", "ppc64", "ppc", "intel"):
        formats.append("universal")
    return formats


def mac_platforms(version: tuple[int, int], arch: str) -> list[str]:
    """The running release down to 11, then 10.16 … 10.4 (arm64 binaries exist only from 11,
    so below it an arm64 Mac takes only universal2)."""
    out: list[str] = []
    if (10, 0) <= version < (11, 0):
        for minor in range(version[1], -1, -1):
            out += [f"macosx_10_{minor}_{fmt}" for fmt in _mac_formats((10, minor), arch)]
    if version >= (11, 0):
        for major in range(version[0], 10, -1):
            out += [f"macosx_{major}_0_{fmt}" for fmt in _mac_formats((major, 0), arch)]
        for minor in range(16, 3, -1):
            formats = _mac_formats((10, minor), arch) if arch == "x86_64" else ["universal2"]
            out += [f"macosx_10_{minor}_{fmt}" for fmt in formats]
    return out


def platform_tags(machine: Machine) -> list[str]:
    if machine.system == "macos" and machine.mac is not None:
        return mac_platforms(machine.mac, machine.arch)
    if machine.system == "linux":
        return (manylinux_platforms(machine.arch, machine.glibc) + musllinux_platforms(machine.arch, machine.musl)
                + [machine.platform])
    return [machine.platform]


def cpython_tags(version: tuple[int, int], abis: list[str], platforms: list[str],
                 free_threaded: bool = False) -> list[str]:
    interpreter = f"cp{version[0]}{version[1]}"
    abis = [abi for abi in abis if abi not in ("abi3", "none")]
    abi3 = version >= (3, 2) and not free_threaded  # the stable ABI is not loadable without the GIL
    out = [f"{interpreter}-{abi}-{plat}" for abi in abis for plat in platforms]
    if abi3:
        out += [f"{interpreter}-abi3-{plat}" for plat in platforms]
    out += [f"{interpreter}-none-{plat}" for plat in platforms]
    if abi3:
        out += [f"cp{version[0]}{minor}-abi3-{plat}" for minor in range(version[1] - 1, 1, -1) for plat in platforms]
    return out


def generic_tags(interpreter: str, abis: list[str], platforms: list[str]) -> list[str]:
    abis = [abi for abi in abis if abi != "none"] + ["none"]
    return [f"{interpreter}-{abi}-{plat}" for abi in abis for plat in platforms]


def _py_range(version: tuple[int, int]) -> list[str]:
    return [f"py{version[0]}{version[1]}", f"py{version[0]}"] + [
        f"py{version[0]}{minor}" for minor in range(version[1] - 1, -1, -1)]


def compatible_tags(version: tuple[int, int], interpreter: str | None, platforms: list[str]) -> list[str]:
    out = [f"{py}-none-{plat}" for py in _py_range(version) for plat in platforms]
    if interpreter:
        out.append(f"{interpreter}-none-any")
    return out + [f"{py}-none-any" for py in _py_range(version)]


def sys_tags(machine: Machine | None = None) -> list[str]:
    """Every tag ``machine`` (default: this one) accepts, best first, without duplicates."""
    machine = machine or Machine.here()
    platforms = platform_tags(machine)
    nodot = f"{machine.version[0]}{machine.version[1]}"
    if machine.implementation == "cp":
        tags = cpython_tags(machine.version, machine.abis, platforms, machine.free_threaded)
        interpreter = f"cp{nodot}"
    else:
        interpreter = f"{machine.implementation}{nodot}"
        tags = generic_tags(interpreter, machine.abis, platforms)
        interpreter = "pp3" if machine.implementation == "pp" else interpreter
    tags += compatible_tags(machine.version, interpreter, platforms)
    seen: set[str] = set()
    return [t for t in tags if not (t in seen or seen.add(t))]


# --- wheel file names --------------------------------------------------------------------------

def wheel_tags(filename: str) -> tuple[frozenset[str], str]:
    """The tags of ``name-ver[-build]-py-abi-plat.whl`` (dot-compressed sets expanded) and its
    build tag ("" without one); empty for a name that is not a wheel's."""
    stem = filename[:-4] if filename.endswith(".whl") else ""
    parts = stem.split("-")
    if len(parts) not in (5, 6):
        return frozenset(), ""
    build = parts[2] if len(parts) == 6 else ""
    pys, abis, plats = (p.lower().split(".") for p in parts[-3:])
    return frozenset(f"{p}-{a}-{x}" for p in pys for a in abis for x in plats), build
