"""npm's and PyPI's own integrity rules (SPEC §3); what every registry owes is in
test_registry_integrity.py.

- npm: with an SRI integrity present, the legacy sha1 ``shasum`` plays no part.
- An artifact with no usable hash (npm with neither field or an unreadable SRI, a PyPI file
  without a sha256) is refused rather than trusted.
- A wheel whose published hash matches but whose member fails its CRC-32 is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from codenav.tools import list_files
from tests.fakes.archives import make_zip
from tests.fakes.http import Reply
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi
from tests.support.cache import assert_nothing_cached, error_of

pytestmark = pytest.mark.hardening

FILES = {"index.js": b"module.exports = 'original';\n", "lib/util.js": b"exports.x = 1;\n" * 50}


def test_sha512_is_checked_and_a_wrong_sha1_beside_it_is_ignored(npm: FakeNpm, cache_dir: Path) -> None:
    """With an SRI integrity present, the legacy shasum plays no part (npm does the same)."""
    npm.publish("both", "1.0.0", FILES)
    npm.packages["both"]["1.0.0"].shasum = hashlib.sha1(b"something else").hexdigest()
    assert [f["path"] for f in list_files.run({"registry": "npm", "package_name": "both",
                                                "version": "1.0.0"})["files"]] == sorted(FILES)


@pytest.mark.parametrize("case", ["npm-no-hash", "npm-malformed-sri", "pypi-no-sha256"])
def test_an_artifact_without_a_usable_hash_is_refused(case: str, npm: FakeNpm, pypi: FakePypi,
                                                      cache_dir: Path) -> None:
    """No hash, or only an unreadable one, is INTEGRITY_ERROR: codenav never trusts bytes blindly."""
    if case.startswith("npm"):
        npm.publish("bare", "1.0.0", FILES, integrity=False, shasum=False)
        if case == "npm-malformed-sri":
            npm.packages["bare"]["1.0.0"].integrity = "sha512-not*base64!"
        args = {"registry": "npm", "package_name": "bare", "version": "1.0.0"}
    else:
        doc = {"meta": {"api-version": "1.1"}, "name": "bare", "files": [
            {"filename": "bare-1.0-py3-none-any.whl", "url": "../../files/bare-1.0-py3-none-any.whl", "hashes": {}}]}
        pypi.add("bare", "bare-1.0-py3-none-any.whl", make_zip({"bare.py": b""}))
        pypi.server.route("GET", "/simple/bare/", lambda h: Reply(
            200, json.dumps(doc).encode(), {"Content-Type": "application/vnd.pypi.simple.v1+json"}))
        args = {"registry": "pypi", "package_name": "bare", "version": "1.0"}
    error = error_of(list_files.run, args)
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert_nothing_cached(cache_dir)


def test_a_zip_member_failing_its_crc_is_an_integrity_error(pypi: FakePypi, cache_dir: Path) -> None:
    """A wheel whose published hash matches but whose member fails CRC-32 is refused, nothing cached."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("crc/data.txt", b"A" * 1000)
    data = buffer.getvalue().replace(b"A" * 1000, b"A" * 999 + b"B", 1)
    pypi.add("crc", "crc-1.0-py3-none-any.whl", data)
    error = error_of(list_files.run, {"registry": "pypi", "package_name": "crc", "version": "1.0"})
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert "CRC" in error.message
    assert_nothing_cached(cache_dir)
