"""npm's and pip's configuration read as they read it, checked on fixture trees and against
``npm config get`` and ``pip config list`` themselves (SPEC §8.1)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codenav.config import npmrc, pipconf, proxy, trust

# --- npm ---------------------------------------------------------------------------------------


def test_npm_ini_arrays_quotes_comments_and_sections() -> None:
    """`key[]` collects a list (a scalar before it joins), double quotes decode as JSON, single
    quotes are literal, `;`/`#` end an unquoted value unless escaped, [sections] are skipped."""
    text = ("ca[]=one\nca[]=two\nkey=first\nkey[]=second\n"
            'quoted="a\\nb"\nsingle=\'x\\ny\'\ncomment=value ; note\nescaped=a\\;b\n# whole line\n'
            "flag\n[section]\ninside=1\n")
    assert npmrc.parse(text) == {
        "ca": ["one", "two"], "key": ["first", "second"], "quoted": "a\nb", "single": "x\\ny",
        "comment": "value", "escaped": "a;b", "flag": "true",
    }


@pytest.mark.parametrize(("text", "expected"), [
    ("${SET}", "yes"),
    ("${UNSET}", "${UNSET}"),
    ("${UNSET?}", ""),
    ("a-${SET?}-b", "a-yes-b"),
    ("\\${SET}", "${SET}"),
    ("\\\\${SET}", "\\yes"),
])
def test_npm_variable_expansion(text: str, expected: str) -> None:
    """`${VAR}` expands, stays as written when unset, `${VAR?}` is empty when unset, and a
    backslash escapes the `$` (pairs of backslashes halve)."""
    assert npmrc.expand(text, {"SET": "yes"}) == expected


@pytest.fixture
def npm_tree(tmp_path: Path) -> dict[str, Path]:
    """builtin (a fake npm package on PATH), global (PREFIX), user (HOME) and project files."""
    package = tmp_path / "npm-package"
    (package / "bin").mkdir(parents=True)
    cli = package / "bin" / "npm-cli.js"
    cli.write_text("#!/bin/sh\n")
    cli.chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "npm").symlink_to(cli)
    (package / "npmrc").write_text("registry=https://builtin.test/\nalways=builtin\n")
    prefix = tmp_path / "prefix"
    (prefix / "etc").mkdir(parents=True)
    (prefix / "etc" / "npmrc").write_text("registry=https://global.test/\ncafile=${CA_DIR}/global.pem\nglobal=1\n")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".npmrc").write_text("registry=https://user.test/\nuser=1\nca[]=A\nca[]=B\nhttps-proxy=${NOPE?}\n")
    project = tmp_path / "project"
    (project / "src" / "deep").mkdir(parents=True)
    (project / "package.json").write_text("{}")
    (project / ".npmrc").write_text("registry=https://project.test/\ncafile=./rel.pem\n")
    return {"bin": bin_dir, "prefix": prefix, "home": home, "project": project, "package": package}


def _env(tree: dict[str, Path], **extra: str) -> dict[str, str]:
    return {"HOME": str(tree["home"]), "PATH": str(tree["bin"]), "PREFIX": str(tree["prefix"]), "CA_DIR": "/ca",
            **extra}


def test_npm_layers_in_order_with_sources(npm_tree: dict[str, Path]) -> None:
    """builtin < global < user < project (found by walking up from cwd) < npm_config_*: each
    key comes from the highest layer, and source() names its file or variable."""
    cwd = str(npm_tree["project"] / "src" / "deep")
    config = npmrc.load(_env(npm_tree), cwd)
    assert [layer for layer, _, _ in config.layers] == ["builtin", "global", "user", "project", "env"]
    assert config.get("registry") == "https://project.test/"
    assert config.source("registry") == str(npm_tree["project"] / ".npmrc")
    assert config.get("cafile") == os.path.join(cwd, "rel.pem")  # relative paths resolve from cwd, as npm
    assert config.get("global") == "1" and config.get("always") == "builtin" and config.get("user") == "1"
    assert config.get("ca") == ["A", "B"] and config.get("https-proxy") == ""
    assert npmrc.load(_env(npm_tree, npm_config_registry="https://env.test/"), cwd).get("registry") == \
        "https://env.test/"
    env = _env(npm_tree, NPM_CONFIG_STRICT_SSL="false")
    assert npmrc.load(env, cwd).source("strict-ssl") == "npm_config_strict_ssl"


def test_npm_global_prefix_from_node_and_prefix_key(npm_tree: dict[str, Path], tmp_path: Path) -> None:
    """Without PREFIX the global file is under node's grandparent; a user `prefix=` moves it;
    the project file is skipped when it is the user file."""
    node_prefix = tmp_path / "node"
    (node_prefix / "bin").mkdir(parents=True)
    (node_prefix / "bin" / "node").write_text("#!/bin/sh\n")
    (node_prefix / "bin" / "node").chmod(0o755)
    (node_prefix / "etc").mkdir()
    (node_prefix / "etc" / "npmrc").write_text("cafile=/from/node/prefix.pem\n")
    env = {"HOME": str(npm_tree["home"]), "PATH": f"{node_prefix / 'bin'}{os.pathsep}{npm_tree['bin']}"}
    config = npmrc.load(env, str(tmp_path))
    assert ("global", str(node_prefix / "etc" / "npmrc")) in config.files()
    assert config.get("cafile") == "/from/node/prefix.pem"
    (npm_tree["home"] / ".npmrc").write_text(f"prefix={npm_tree['prefix']}\n")
    moved = npmrc.load(env, str(tmp_path))
    assert ("global", str(npm_tree["prefix"] / "etc" / "npmrc")) in moved.files()
    (npm_tree["home"] / "package.json").write_text("{}")
    at_home = npmrc.load(env, str(npm_tree["home"]))
    assert [layer for layer, _, _ in at_home.layers].count("project") == 0


def test_npm_parity_with_npm_config_get(npm_tree: dict[str, Path], tmp_path: Path) -> None:
    """The keys trust and proxies read equal what `npm config get` prints, same HOME/PREFIX/cwd."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("npm is not installed")
    (npm_tree["prefix"] / "etc" / "npmrc").write_text("cafile=/g/ca.pem\nproxy=http://global.test:1\n")
    (npm_tree["home"] / ".npmrc").write_text("https-proxy=http://user.test:2\nnoproxy=a.test,b.test\n"
                                             "strict-ssl=${STRICT}\n")
    (npm_tree["project"] / ".npmrc").write_text("cafile=./rel.pem\n")
    cwd = npm_tree["project"] / "src"
    env = {"HOME": str(npm_tree["home"]), "PATH": os.environ["PATH"], "PREFIX": str(npm_tree["prefix"]),
           "STRICT": "false"}
    keys = ["cafile", "https-proxy", "proxy", "noproxy", "strict-ssl"]
    done = subprocess.run([npm, "config", "get", *keys], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    theirs = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    config = npmrc.load(env, str(cwd))
    ours = {key: str(config.get(key)) for key in keys}
    assert ours == theirs


# --- pip ---------------------------------------------------------------------------------------


def test_pip_files_in_pips_order(tmp_path: Path) -> None:
    """global (each XDG_CONFIG_DIRS entry, then /etc) < user (legacy, then XDG) < site <
    PIP_CONFIG_FILE; an existing PIP_CONFIG_FILE drops the user files; os.devnull drops all."""
    if sys.platform in ("win32", "darwin"):
        pytest.skip("the Unix locations")
    env = {"HOME": str(tmp_path), "XDG_CONFIG_DIRS": f"{tmp_path}/x1{os.pathsep}{tmp_path}/x2",
           "XDG_CONFIG_HOME": f"{tmp_path}/cfg", "PIP_CONFIG_FILE": f"{tmp_path}/missing.conf"}
    paths = [path for _, path in pipconf.files(env)]
    expected = [f"{tmp_path}/x1/pip/pip.conf", f"{tmp_path}/x2/pip/pip.conf", "/etc/pip.conf",
                f"{tmp_path}/.pip/pip.conf", f"{tmp_path}/cfg/pip/pip.conf"]
    assert paths[:5] == expected
    assert paths[-1] == f"{tmp_path}/missing.conf" and os.path.join(sys.prefix, "pip.conf") in paths
    (tmp_path / "chosen.conf").write_text("")
    kinds = [kind for kind, _ in pipconf.files({**env, "PIP_CONFIG_FILE": str(tmp_path / "chosen.conf")})]
    assert "user" not in kinds
    assert pipconf.files({**env, "PIP_CONFIG_FILE": os.devnull}) == []


def test_pip_sections_and_variables_decide_as_pip_does(tmp_path: Path) -> None:
    """[download] of any file beats [global] of any file, PIP_* beats both, a later file beats
    an earlier one within a section, and every cert of every file is kept for the trust union."""
    (tmp_path / "x" / "pip").mkdir(parents=True)
    (tmp_path / "x" / "pip" / "pip.conf").write_text("[download]\ncert = /global/download.pem\n")
    (tmp_path / "cfg" / "pip").mkdir(parents=True)
    (tmp_path / "cfg" / "pip" / "pip.conf").write_text(
        "[global]\ncert = /user/global.pem\nindex-url: https://user.test/simple/\n"
        "trusted-host =\n    a.test\n    b.test:8443\n# comment\n")
    env = {"HOME": str(tmp_path), "XDG_CONFIG_DIRS": str(tmp_path / "x"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    config = pipconf.load(env)
    assert config.get("cert") == ("/global/download.pem", str(tmp_path / "x" / "pip" / "pip.conf"))
    assert config.value("index-url") == "https://user.test/simple/"
    assert pipconf.split_list(config.value("trusted-host") or "") == ["a.test", "b.test:8443"]
    assert pipconf.load({**env, "PIP_CERT": "/env.pem"}).get("cert") == ("/env.pem", "PIP_CERT")
    certs = [value for value, _, _ in config.all("cert")]
    assert "/global/download.pem" in certs and "/user/global.pem" in certs
    assert pipconf.load({**env, "PIP_CONFIG_FILE": os.devnull}).value("cert") is None


def test_pip_parity_with_pip_config_list(tmp_path: Path) -> None:
    """Every section.key pip reports with `pip config list` is what the reader merges."""
    try:
        import pip  # noqa: F401
    except ImportError:
        pytest.skip("pip is not installed")
    (tmp_path / "x" / "pip").mkdir(parents=True)
    (tmp_path / "x" / "pip" / "pip.conf").write_text("[global]\ncert = /x.pem\ntimeout = 5\n")
    (tmp_path / ".pip").mkdir()
    (tmp_path / ".pip" / "pip.conf").write_text("[global]\ncert = /legacy.pem\n[download]\nproxy = http://p.test:3\n")
    (tmp_path / "cfg" / "pip").mkdir(parents=True)
    (tmp_path / "cfg" / "pip" / "pip.conf").write_text("[global]\ncert = /user.pem\n[install]\nNo_Cache_Dir = 1\n")
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""), "XDG_CONFIG_DIRS": str(tmp_path / "x"),
           "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "PIP_TRUSTED_HOST": "t.test"}
    done = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    theirs = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        theirs[key] = ast.literal_eval(value)
    ours = {key: value for key, (value, _) in pipconf.load(env).raw.items()}
    assert ours == theirs
    assert theirs["global.cert"] == "/user.pem"


# --- proxies and insecure settings -------------------------------------------------------------


def test_proxy_choice_per_package_manager(tmp_path: Path) -> None:
    """npm: https-proxy, else proxy, unless noproxy (or NO_PROXY) lists the host by labels;
    pip: its proxy unless NO_PROXY lists the host; the source names the file."""
    home = tmp_path
    (home / ".npmrc").write_text("proxy=http://npm.test:1\nnoproxy=internal.test\n")
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text("[global]\nproxy = http://pip.test:2\n")
    env = {"HOME": str(home), "PATH": "", "PIP_CONFIG_FILE": str(home / ".config" / "pip" / "pip.conf")}
    assert proxy.configured("https://reg.test/x", "npm", env) == ("http://npm.test:1", f"proxy in {home / '.npmrc'}")
    assert proxy.configured("https://a.internal.test/x", "npm", env) is None
    assert proxy.configured("https://reg.test/x", "pip", env)[0] == "http://pip.test:2"
    assert proxy.configured("https://reg.test/x", "pip", {**env, "NO_PROXY": ".reg.test"}) is None
    (home / ".npmrc").write_text("proxy=http://npm.test:1\nhttps-proxy=http://npms.test:3\n")
    assert proxy.configured("http://reg.test/x", "npm", env)[0] == "http://npms.test:3"
    assert proxy.configured("https://reg.test/x", None, env) is None


@pytest.mark.parametrize(("url", "expected"), [
    ("http://user:pa%40ss@proxy.test:8080", "http://***@proxy.test:8080"),
    ("http://token@proxy.test", "http://***@proxy.test"),
    ("proxy.test:3128", "proxy.test:3128"),
    ("https://proxy.test/path", "https://proxy.test/path"),
])
def test_redact_removes_proxy_credentials(url: str, expected: str) -> None:
    """user:password@ becomes ***@; a URL without credentials is unchanged."""
    assert proxy.redact(url) == expected


def test_npm_noproxy_matches_labels_not_wildcards() -> None:
    """npm's noproxy compares dot-labels from the right: no `*`, no partial labels."""
    assert proxy.npm_bypasses("a.example.com", "example.com")
    assert proxy.npm_bypasses("example.com", ".example.com")
    assert not proxy.npm_bypasses("badexample.com", "example.com")
    assert not proxy.npm_bypasses("a.example.com", "*")
    assert proxy.bypasses("a.example.com", "*")


def test_insecure_settings_are_found_with_their_file(tmp_path: Path) -> None:
    """strict-ssl=false applies to every npm https exchange; trusted-host only to its host (and port)."""
    (tmp_path / ".npmrc").write_text("strict-ssl=false\n")
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\ntrusted-host = idx.test:8443 other.test\n")
    env = {"HOME": str(tmp_path), "PATH": "", "PIP_CONFIG_FILE": str(conf)}
    assert trust.insecure("https://x.test/", "npm", env) == ("strict-ssl=false", str(tmp_path / ".npmrc"))
    assert trust.insecure("https://idx.test:8443/simple/", "pip", env) == ("trusted-host idx.test:8443", str(conf))
    assert trust.insecure("https://idx.test/simple/", "pip", env) is None
    assert trust.insecure("https://other.test/simple/", "pip", env) is not None
    assert trust.insecure("https://x.test/", None, env) is None
    assert trust.insecure("http://x.test/", "npm", env) is None  # no TLS to turn off


def test_ca_sources_are_the_union_of_every_configuration(tmp_path: Path) -> None:
    """CODENAV_CA_BUNDLE, npm cafile and inline ca, pip cert of every file, PIP_CERT and the
    SSL/requests/curl/node variables are all consulted, each labelled with where it is set."""
    (tmp_path / ".npmrc").write_text('cafile=/npm.pem\nca="-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----"\n')
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\ncert = /pip.pem\n")
    env = {"HOME": str(tmp_path), "PATH": "", "PIP_CONFIG_FILE": str(conf), "PIP_CERT": "/pipenv.pem",
           "CODENAV_CA_BUNDLE": "/codenav.pem", "SSL_CERT_FILE": "/ssl.pem", "REQUESTS_CA_BUNDLE": "/req.pem",
           "CURL_CA_BUNDLE": "/curl.pem", "NODE_EXTRA_CA_CERTS": "/node.pem"}
    found = {s.label: (s.path, s.pem) for s in trust.sources(env, str(tmp_path))}
    assert found["CODENAV_CA_BUNDLE"] == ("/codenav.pem", None)
    assert found[f"npm cafile in {tmp_path / '.npmrc'}"] == ("/npm.pem", None)
    assert "AAAA" in (found[f"npm ca in {tmp_path / '.npmrc'}"][1] or "")
    assert found[f"pip cert in {conf} [global]"] == ("/pip.pem", None)
    assert found["PIP_CERT"] == ("/pipenv.pem", None)
    for variable in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"):
        assert variable in found


def test_npm_config_is_remembered_only_while_its_files_and_environment_stay_the_same(tmp_path: Path) -> None:
    """A second load in one process reuses what it read, but a rewritten file, a moved file or a
    changed variable is seen at once (an MCP server loads npm's config on every call)."""
    home = tmp_path / "remembering"
    home.mkdir()
    env = {"HOME": str(home), "PATH": ""}
    rc = home / ".npmrc"
    rc.write_text("registry=http://one.test/\n")
    assert npmrc.load(env, str(tmp_path)).get("registry") == "http://one.test/"
    rc.write_text("registry=http://two-longer.test/\n")
    assert npmrc.load(env, str(tmp_path)).get("registry") == "http://two-longer.test/"
    replacement = home / "new.npmrc"
    replacement.write_text("registry=http://three.test/\n")
    os.replace(replacement, rc)  # same size as the first, another inode
    assert npmrc.load(env, str(tmp_path)).get("registry") == "http://three.test/"
    assert npmrc.load({**env, "npm_config_registry": "http://env.test/"}, str(tmp_path)).get("registry") == \
        "http://env.test/"
    rc.write_text("registry=${WHERE}\n")
    assert npmrc.load({**env, "WHERE": "http://a.test/"}, str(tmp_path)).get("registry") == "http://a.test/"
    assert npmrc.load({**env, "WHERE": "http://b.test/"}, str(tmp_path)).get("registry") == "http://b.test/"
    rc.unlink()
    assert npmrc.load(env, str(tmp_path)).get("registry") is None
