"""Every registry's upstream misbehaving in every way: typed errors, the right ``retryable``,
nothing cached (SPEC §4, §8).

Each adapter names the places a resolution reads (its metadata documents, the hops on the way
to the artifact, the artifact itself); every fault of tests/support/faults.py is put on each
place in turn, wrapping the fake's healthy answer, and ``list_files`` must end in the code the
table gives for that kind of place, promptly, with a one-line message, and leave only the job
record that tells a waiting caller how the indexing ended.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codenav.tools import list_files
from tests.support import faults
from tests.support.registries import IDS, adapter_class

pytestmark = pytest.mark.hardening

FILES = {"src/lib.txt": b"library\n"}


def _rows() -> list:
    rows = []
    for adapter_id in IDS:
        adapter = adapter_class(adapter_id).unstarted()
        for place in adapter.places(adapter.package("pkg"), adapter.version("1.0.0")):
            for fault, (code, retryable) in {**faults.EXPECTED[place.kind], **place.expected}.items():
                rows.append(pytest.param(adapter_id, place.id, fault, code, retryable,
                                         id=f"{adapter_id}-{place.id}-{fault}"))
    return rows


@pytest.mark.parametrize(("registry", "place", "fault", "code", "retryable"), _rows(), indirect=["registry"])
def test_an_upstream_fault_is_a_typed_error_and_nothing_is_cached(registry, place: str, fault: str, code: str,
                                                                  retryable: bool, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fault, met where the registry is read, becomes its specified code and retryable flag,
    promptly, and leaves no entry, alias or debris; Retry-After reaches the caller."""
    faults.set_timeouts(monkeypatch)
    name, version = registry.package("pkg"), registry.version("1.0.0")
    artifact = registry.publish(name, version, FILES)
    where = next(p for p in registry.places(name, version) if p.id == place)
    if where.setup is not None:
        where.setup(registry, monkeypatch)
    make = where.faults.get(fault, faults.FAULTS[fault])
    if fault == "oversized" and where.kind == "artifact":
        # The download cap is configurable: exceed it for real, with the healthy answer.
        monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(artifact) - 1))
        make = lambda good, other: good  # noqa: E731
    faults.fault_route(registry.server, where.paths, make, prefix=where.prefix)
    outcome = faults.assert_fault_outcome(
        lambda: list_files.run(registry.args(name, version if where.pinned else None)), fault, code, retryable,
        tmp_path)
    if fault in ("429", "503"):
        # Retry-After reaches the caller (SPEC §4 details): 7 s on the 429, 3 s on the 503.
        assert outcome.details["retryAfterSeconds"] == (7 if fault == "429" else 3)
    # The failure is recorded for the waiting caller, and nothing else is left.
    assert len(list((tmp_path / "cache" / "jobs").iterdir())) == 1
