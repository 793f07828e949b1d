"""What changed between two file trees, in git's terms (issue 17, the engine of diff_versions).

Contract:
- Input: two trees as rows ``(path, size, sha256 | None, is_binary, is_executable,
  link_target | None)`` and two readers ``read(path) -> bytes``. A file is read only when its
  digest does not already say it is unchanged (or, for rename pairing, when it has no digest).
- Lines are split on ``\\n`` only and keep it, so CRLF and a missing final newline are kept
  byte for byte. A record without its ``\\n`` differs from the same text with one, as in git.
- Hunks are git's: the Myers diff of git's xdiff with its preprocessing (common ends trimmed,
  lines without a match discarded, runs of many-times-repeated lines dropped), its cost
  heuristics, its group sliding with the indent heuristic (git's default since 2.14), three
  lines of context by default, hunks joined when their contexts touch, and the default
  function-name rule in ``@@`` headers. So ``added``/``removed`` equal ``git diff --numstat``.
- Renames are exact only: a removed and an added path with the same content (same digest,
  same kind: file or symlink), paired like git (same base name first), empty files included.
- A file over ``size_limit`` (either side) or whose diff runs past ``time_budget`` seconds is
  summarised without a diff: counts are None and its patch is written the way git writes a
  file over ``core.bigFileThreshold``, as "Binary files … differ". Binary files never get a body.
- The patch is git's extended format; binary sections carry full blob ids, so ``git apply``
  accepts them in a repository that holds the new blobs (git refuses a binary section whose
  index line is abbreviated).
- Binary is the rows' flag (codenav's rule: a NUL in the first 8 KiB, or not UTF-8), so a
  Latin-1 text that git would count as lines is "Binary files … differ" here.
- Pure: no I/O of its own, no global state; the output is a plain dict with camelCase keys.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is for annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

DEFAULT_CONTEXT = 3
DEFAULT_SIZE_LIMIT = 1024 * 1024  # bytes, either side; bigger files are named, not diffed
DEFAULT_TIME_BUDGET = 2.0  # seconds of diffing per file
PAGE_BYTES = 50 * 1024  # SPEC §5's output budget
PAGE_LINES = 2000
CUT_MARKER = "\\ [diff cut here: {n} more lines of this file's patch did not fit the output budget]\n"

MODE_FILE = "100644"
MODE_EXEC = "100755"
MODE_LINK = "120000"
_NULL_ID = "0" * 40
_ABBREV = 7  # git's abbreviation outside a repository


class DiffTimeout(Exception):
    """The diff of one file ran past its time budget."""


# --- git blob ids ---------------------------------------------------------------------------

def blob_id(data: bytes) -> str:
    """The git object id of a blob holding ``data``: sha1 of ``blob <len>\\0`` + data."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# --- records and git's Myers diff -----------------------------------------------------------

def split_records(data: bytes) -> list[bytes]:
    """Lines as git's xdiff sees them: each ends at and keeps its ``\\n``; the last may lack it."""
    if not data:
        return []
    parts = data.split(b"\n")
    records = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        records.append(parts[-1])
    return records


_MAX_EQLIMIT = 1024  # xprepare.c: XDL_MAX_EQLIMIT
_SIMSCAN_WINDOW = 100  # XDL_SIMSCAN_WINDOW
_KPDIS_RUN = 4  # XDL_KPDIS_RUN
_MAX_COST_MIN = 256  # xdiffi.c: XDL_MAX_COST_MIN
_HEUR_MIN_COST = 256  # XDL_HEUR_MIN_COST
_SNAKE_CNT = 20  # XDL_SNAKE_CNT
_K_HEUR = 4  # XDL_K_HEUR
_DISCARD, _KEEP, _INVESTIGATE = 0, 1, 2


def _bogosqrt(n: int) -> int:
    # xutils.c's integer square root approximation, whose exact values decide which lines
    # count as "repeated too often" and the cost cut-off.
    i = 1
    while n > 0:
        i <<= 1
        n >>= 2
    return i


def _multimatch_kept(action: list[int]) -> list[bool]:
    """For each line matched too often: False when it sits inside a run of unmatched lines.

    xprepare.c's xdl_clean_mmatch: such a line is dropped from the Myers input when the runs of
    non-kept lines on both sides of it (each cut at a kept line and at 100 lines) both hold
    unmatched lines, and the multi-match lines are at most a quarter of the two runs. Prefix
    counts give each answer in constant time (git rescans up to 200 lines per line).
    """
    length = len(action)
    unmatched_before = [0] * (length + 1)  # unmatched lines in action[:k]
    for k, kind in enumerate(action):
        unmatched_before[k + 1] = unmatched_before[k] + (kind == _DISCARD)
    prev_keep = [-1] * length
    last = -1
    for k, kind in enumerate(action):
        prev_keep[k] = last
        if kind == _KEEP:
            last = k
    next_keep = [length] * length
    last = length
    for k in range(length - 1, -1, -1):
        next_keep[k] = last
        if action[k] == _KEEP:
            last = k
    kept = [True] * length
    for i, kind in enumerate(action):
        if kind != _INVESTIGATE:
            continue
        lo = max(prev_keep[i] + 1, i - _SIMSCAN_WINDOW)
        dis0 = unmatched_before[i] - unmatched_before[lo]
        if dis0 == 0:
            continue
        hi = min(next_keep[i] - 1, i + _SIMSCAN_WINDOW, length - 1)
        dis1 = unmatched_before[hi + 1] - unmatched_before[i + 1]
        if dis1 == 0:
            continue
        multi = 2 + (i - lo - dis0) + (hi - i - dis1)  # each side counts line i itself once
        kept[i] = not multi * _KPDIS_RUN < multi + dis0 + dis1
    return kept


def _kept_records(ids: list[int], count_other: dict[int, int], start: int, stop: int) -> tuple[list[int], list[int]]:
    """Indexes (in start..stop) of the records the Myers pass sees, and the discarded ones."""
    limit = min(_bogosqrt(len(ids)), _MAX_EQLIMIT)
    action = []
    for k in range(start, stop):
        matches = count_other.get(ids[k], 0)
        action.append(_DISCARD if matches == 0 else _KEEP if matches < limit else _INVESTIGATE)
    multi_kept = _multimatch_kept(action)
    kept, dropped = [], []
    for offset, kind in enumerate(action):
        if kind == _KEEP or (kind == _INVESTIGATE and multi_kept[offset]):
            kept.append(start + offset)
        else:
            dropped.append(start + offset)
    return kept, dropped


def _split(h1: list[int], off1: int, lim1: int, h2: list[int], off2: int, lim2: int,
           kvdf: list[int], kvdb: list[int], need_min: bool, mxcost: int,
           clock: Callable[[], float] | None, deadline: float) -> tuple[int, int, bool, bool]:
    """xdiffi.c's xdl_split: the middle snake of a box, or git's heuristic cut of an expensive one.

    Returns (i1, i2, minimal below, minimal above). ``kvdf``/``kvdb`` are indexed by diagonal:
    negative diagonals (down to -n2 - 1) wrap to the end of the lists, which are long enough
    (n1 + n2 + 3) that they never meet the positive ones (up to n1 + 1).
    """
    dmin, dmax = off1 - lim2, lim1 - off2
    fmid, bmid = off1 - off2, lim1 - lim2
    odd = (fmid - bmid) & 1
    fmin = fmax = fmid
    bmin = bmax = bmid
    kvdf[fmid] = off1
    kvdb[bmid] = lim1
    big = 1 << 62
    ec = 0
    while True:
        ec += 1
        if clock is not None and ec & 31 == 1 and clock() > deadline:
            raise DiffTimeout
        got_snake = False
        if fmin > dmin:
            fmin -= 1
            kvdf[fmin - 1] = -1
        else:
            fmin += 1
        if fmax < dmax:
            fmax += 1
            kvdf[fmax + 1] = -1
        else:
            fmax -= 1
        for d in range(fmax, fmin - 1, -2):
            if kvdf[d - 1] >= kvdf[d + 1]:
                i1 = kvdf[d - 1] + 1
            else:
                i1 = kvdf[d + 1]
            prev1 = i1
            i2 = i1 - d
            while i1 < lim1 and i2 < lim2 and h1[i1] == h2[i2]:
                i1 += 1
                i2 += 1
            if i1 - prev1 > _SNAKE_CNT:
                got_snake = True
            kvdf[d] = i1
            if odd and bmin <= d <= bmax and kvdb[d] <= i1:
                return i1, i2, True, True

        if bmin > dmin:
            bmin -= 1
            kvdb[bmin - 1] = big
        else:
            bmin += 1
        if bmax < dmax:
            bmax += 1
            kvdb[bmax + 1] = big
        else:
            bmax -= 1
        for d in range(bmax, bmin - 1, -2):
            if kvdb[d - 1] < kvdb[d + 1]:
                i1 = kvdb[d - 1]
            else:
                i1 = kvdb[d + 1] - 1
            prev1 = i1
            i2 = i1 - d
            while i1 > off1 and i2 > off2 and h1[i1 - 1] == h2[i2 - 1]:
                i1 -= 1
                i2 -= 1
            if prev1 - i1 > _SNAKE_CNT:
                got_snake = True
            kvdb[d] = i1
            if not odd and fmin <= d <= fmax and i1 <= kvdf[d]:
                return i1, i2, True, True

        if need_min:
            continue

        # Past the trigger cost, a long enough snake far along a diagonal is taken as the split
        # (xdl_split's "interesting path" sampling), giving up minimality on one side.
        if got_snake and ec > _HEUR_MIN_COST:
            best = 0
            found = None
            for d in range(fmax, fmin - 1, -2):
                dd = d - fmid if d > fmid else fmid - d
                i1 = kvdf[d]
                i2 = i1 - d
                v = (i1 - off1) + (i2 - off2) - dd
                if (v > _K_HEUR * ec and v > best and off1 + _SNAKE_CNT <= i1 < lim1
                        and off2 + _SNAKE_CNT <= i2 < lim2):
                    k = 1
                    while h1[i1 - k] == h2[i2 - k]:
                        if k == _SNAKE_CNT:
                            best = v
                            found = (i1, i2)
                            break
                        k += 1
            if best > 0:
                return found[0], found[1], True, False
            best = 0
            for d in range(bmax, bmin - 1, -2):
                dd = d - bmid if d > bmid else bmid - d
                i1 = kvdb[d]
                i2 = i1 - d
                v = (lim1 - i1) + (lim2 - i2) - dd
                if (v > _K_HEUR * ec and v > best and off1 < i1 <= lim1 - _SNAKE_CNT
                        and off2 < i2 <= lim2 - _SNAKE_CNT):
                    k = 0
                    while h1[i1 + k] == h2[i2 + k]:
                        if k == _SNAKE_CNT - 1:
                            best = v
                            found = (i1, i2)
                            break
                        k += 1
            if best > 0:
                return found[0], found[1], False, True

        # Enough is enough (xdl_split): take the furthest-reaching path found so far.
        if ec >= mxcost:
            fbest = fbest1 = -1
            for d in range(fmax, fmin - 1, -2):
                i1 = min(kvdf[d], lim1)
                i2 = i1 - d
                if lim2 < i2:
                    i1 = lim2 + d
                    i2 = lim2
                if fbest < i1 + i2:
                    fbest = i1 + i2
                    fbest1 = i1
            bbest = bbest1 = big
            for d in range(bmax, bmin - 1, -2):
                i1 = max(off1, kvdb[d])
                i2 = i1 - d
                if i2 < off2:
                    i1 = off2 + d
                    i2 = off2
                if i1 + i2 < bbest:
                    bbest = i1 + i2
                    bbest1 = i1
            if (lim1 + lim2) - bbest < fbest - (off1 + off2):
                return fbest1, fbest - fbest1, True, False
            return bbest1, bbest - bbest1, False, True


def _myers(h1: list[int], h2: list[int], clock: Callable[[], float] | None,
           deadline: float) -> tuple[set[int], set[int]]:
    """xdl_recs_cmp over the kept records: positions (in h1, h2) that are not common."""
    n1, n2 = len(h1), len(h2)
    ndiags = n1 + n2 + 3
    kvdf = [0] * ndiags
    kvdb = [0] * ndiags
    mxcost = max(_bogosqrt(ndiags), _MAX_COST_MIN)
    gone1: set[int] = set()
    gone2: set[int] = set()
    # An explicit stack: the recursion of xdl_recs_cmp can be as deep as the edit cost.
    boxes = [(0, n1, 0, n2, False)]
    while boxes:
        off1, lim1, off2, lim2, need_min = boxes.pop()
        while off1 < lim1 and off2 < lim2 and h1[off1] == h2[off2]:
            off1 += 1
            off2 += 1
        while off1 < lim1 and off2 < lim2 and h1[lim1 - 1] == h2[lim2 - 1]:
            lim1 -= 1
            lim2 -= 1
        if off1 == lim1:
            gone2.update(range(off2, lim2))
        elif off2 == lim2:
            gone1.update(range(off1, lim1))
        else:
            i1, i2, min_lo, min_hi = _split(h1, off1, lim1, h2, off2, lim2, kvdf, kvdb,
                                            need_min, mxcost, clock, deadline)
            boxes.append((i1, lim1, i2, lim2, min_hi))
            boxes.append((off1, i1, off2, i2, min_lo))
    return gone1, gone2


# git's indent heuristic (xdiffi.c, measure_split / score_add_split); weights are git's.
_MAX_INDENT = 200
_MAX_BLANKS = 20
_START_OF_FILE_PENALTY = 1
_END_OF_FILE_PENALTY = 21
_TOTAL_BLANK_WEIGHT = -30
_POST_BLANK_WEIGHT = 6
_RELATIVE_INDENT_PENALTY = -4
_RELATIVE_INDENT_WITH_BLANK_PENALTY = 10
_RELATIVE_OUTDENT_PENALTY = 24
_RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17
_RELATIVE_DEDENT_PENALTY = 23
_RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17
_INDENT_WEIGHT = 60
_INDENT_HEURISTIC_MAX_SLIDING = 100
_GIT_SPACE = frozenset(b" \t\n\r")  # git's ctype: isspace is these four only


def _indent(record: bytes) -> int:
    """Columns of leading indentation (tab = to the next multiple of 8); -1 for a blank line."""
    width = 0
    for byte in record:
        if byte not in _GIT_SPACE:
            return width
        if byte == 32:
            width += 1
        elif byte == 9:
            width += 8 - width % 8
        if width >= _MAX_INDENT:
            return _MAX_INDENT
    return -1


class _Side:
    """One file during compaction: its records' ids, indents, and changed flags (1-offset)."""

    __slots__ = ("ids", "records", "changed", "n", "_indents")

    def __init__(self, ids: list[int], records: list[bytes], changed: list[bool]) -> None:
        self.ids, self.records, self.n = ids, records, len(ids)
        self.changed = changed  # changed[i + 1] is record i; changed[0] and changed[n + 1] stay False
        self._indents: dict[int, int] = {}

    def indent(self, i: int) -> int:
        value = self._indents.get(i)
        if value is None:
            value = self._indents[i] = _indent(self.records[i])
        return value


def _group_init(side: _Side) -> list[int]:
    end = 0
    while side.changed[end + 1]:
        end += 1
    return [0, end]


def _group_next(side: _Side, g: list[int]) -> bool:
    if g[1] == side.n:
        return False
    g[0] = g[1] + 1
    g[1] = g[0]
    while side.changed[g[1] + 1]:
        g[1] += 1
    return True


def _group_previous(side: _Side, g: list[int]) -> bool:
    if g[0] == 0:
        return False
    g[1] = g[0] - 1
    g[0] = g[1]
    while side.changed[g[0]]:  # changed[g[0]] is record g[0] - 1
        g[0] -= 1
    return True


def _slide_down(side: _Side, g: list[int]) -> bool:
    if g[1] < side.n and side.ids[g[0]] == side.ids[g[1]]:
        side.changed[g[0] + 1] = False
        g[0] += 1
        side.changed[g[1] + 1] = True
        g[1] += 1
        while side.changed[g[1] + 1]:
            g[1] += 1
        return True
    return False


def _slide_up(side: _Side, g: list[int]) -> bool:
    if g[0] > 0 and side.ids[g[0] - 1] == side.ids[g[1] - 1]:
        g[0] -= 1
        side.changed[g[0] + 1] = True
        g[1] -= 1
        side.changed[g[1] + 1] = False
        while side.changed[g[0]]:
            g[0] -= 1
        return True
    return False


def _split_score(side: _Side, split: int, score: list[int]) -> None:
    """Add the badness of a split just above record ``split`` to score [indent, penalty]."""
    n = side.n
    if split >= n:
        end_of_file, indent = True, -1
    else:
        end_of_file, indent = False, side.indent(split)
    pre_blank, pre_indent = 0, -1
    for i in range(split - 1, -1, -1):
        pre_indent = side.indent(i)
        if pre_indent != -1:
            break
        pre_blank += 1
        if pre_blank == _MAX_BLANKS:
            pre_indent = 0
            break
    post_blank, post_indent = 0, -1
    for i in range(split + 1, n):
        post_indent = side.indent(i)
        if post_indent != -1:
            break
        post_blank += 1
        if post_blank == _MAX_BLANKS:
            post_indent = 0
            break

    penalty = 0
    if pre_indent == -1 and pre_blank == 0:
        penalty += _START_OF_FILE_PENALTY
    if end_of_file:
        penalty += _END_OF_FILE_PENALTY
    blank_after = 1 + post_blank if indent == -1 else 0
    total_blank = pre_blank + blank_after
    penalty += _TOTAL_BLANK_WEIGHT * total_blank + _POST_BLANK_WEIGHT * blank_after
    effective = indent if indent != -1 else post_indent
    any_blanks = total_blank != 0
    if effective == -1 or pre_indent == -1 or effective == pre_indent:
        pass
    elif effective > pre_indent:
        penalty += _RELATIVE_INDENT_WITH_BLANK_PENALTY if any_blanks else _RELATIVE_INDENT_PENALTY
    elif post_indent != -1 and post_indent > effective:
        penalty += _RELATIVE_OUTDENT_WITH_BLANK_PENALTY if any_blanks else _RELATIVE_OUTDENT_PENALTY
    else:
        penalty += _RELATIVE_DEDENT_WITH_BLANK_PENALTY if any_blanks else _RELATIVE_DEDENT_PENALTY
    score[0] += effective
    score[1] += penalty


def _score_cmp(s1: list[int], s2: list[int]) -> int:
    cmp_indents = (s1[0] > s2[0]) - (s1[0] < s2[0])
    return _INDENT_WEIGHT * cmp_indents + (s1[1] - s2[1])


def _compact(side: _Side, other: _Side) -> None:
    """xdl_change_compact: slide each group of changes to git's preferred place.

    Up as far as it goes, then down; aligned with a change on the other side when it can be,
    else placed by the indent heuristic. Sliding moves lines, never changes their number.
    """
    g = _group_init(side)
    go = _group_init(other)
    while True:
        if g[1] != g[0]:
            while True:
                groupsize = g[1] - g[0]
                end_matching_other = -1
                while _slide_up(side, g):
                    _group_previous(other, go)
                earliest_end = g[1]
                if go[1] > go[0]:
                    end_matching_other = g[1]
                while _slide_down(side, g):
                    _group_next(other, go)
                    if go[1] > go[0]:
                        end_matching_other = g[1]
                if groupsize == g[1] - g[0]:
                    break
            if g[1] == earliest_end:
                pass
            elif end_matching_other != -1:
                while go[1] == go[0]:
                    _slide_up(side, g)
                    _group_previous(other, go)
            else:
                shift = max(earliest_end, g[1] - groupsize - 1, g[1] - _INDENT_HEURISTIC_MAX_SLIDING)
                best_shift = -1
                best_score = [0, 0]
                while shift <= g[1]:
                    score = [0, 0]
                    _split_score(side, shift, score)
                    _split_score(side, shift - groupsize, score)
                    if best_shift == -1 or _score_cmp(score, best_score) <= 0:
                        best_score = score
                        best_shift = shift
                    shift += 1
                while g[1] > best_shift:
                    _slide_up(side, g)
                    _group_previous(other, go)
        if not _group_next(side, g):
            break
        _group_next(other, go)


def edit_script(a: list[bytes], b: list[bytes], *, clock: Callable[[], float] | None = None,
                deadline: float = 0.0) -> list[tuple[int, int, int, int]]:
    """git's changes between two record lists: (start in a, start in b, count in a, count in b).

    ``clock``/``deadline``: raise DiffTimeout once ``clock()`` passes ``deadline``.
    """
    classes: dict[bytes, int] = {}
    ids1 = [classes.setdefault(r, len(classes)) for r in a]
    ids2 = [classes.setdefault(r, len(classes)) for r in b]
    n1, n2 = len(ids1), len(ids2)
    count1: dict[int, int] = {}
    for c in ids1:
        count1[c] = count1.get(c, 0) + 1
    count2: dict[int, int] = {}
    for c in ids2:
        count2[c] = count2.get(c, 0) + 1

    # xdl_trim_ends: common leading and trailing records never reach the diff.
    lim = min(n1, n2)
    start = 0
    while start < lim and ids1[start] == ids2[start]:
        start += 1
    tail = 0
    while tail < lim - start and ids1[n1 - 1 - tail] == ids2[n2 - 1 - tail]:
        tail += 1
    changed1 = [False] * (n1 + 2)
    changed2 = [False] * (n2 + 2)
    kept1, dropped1 = _kept_records(ids1, count2, start, n1 - tail)
    kept2, dropped2 = _kept_records(ids2, count1, start, n2 - tail)
    for i in dropped1:
        changed1[i + 1] = True
    for i in dropped2:
        changed2[i + 1] = True
    gone1, gone2 = _myers([ids1[i] for i in kept1], [ids2[i] for i in kept2], clock, deadline)
    for k in gone1:
        changed1[kept1[k] + 1] = True
    for k in gone2:
        changed2[kept2[k] + 1] = True

    side1, side2 = _Side(ids1, a, changed1), _Side(ids2, b, changed2)
    _compact(side1, side2)
    _compact(side2, side1)

    # xdl_build_script, forwards.
    script = []
    i1 = i2 = 0
    while i1 < n1 or i2 < n2:
        if changed1[i1 + 1] or changed2[i2 + 1]:
            s1, s2 = i1, i2
            while changed1[i1 + 1]:
                i1 += 1
            while changed2[i2 + 1]:
                i2 += 1
            script.append((s1, s2, i1 - s1, i2 - s2))
        else:
            i1 += 1
            i2 += 1
    return script


def _function_name(record: bytes) -> bytes | None:
    # xemit.c's def_ff, git's rule when no diff driver sets one: a line starting with an ASCII
    # letter, "_" or "$"; at most 80 bytes, trailing whitespace dropped.
    if record and (65 <= record[0] <= 90 or 97 <= record[0] <= 122 or record[0] in b"_$"):
        name = record[:80]
        while name and name[-1] in _GIT_SPACE:
            name = name[:-1]
        return name
    return None


def _range(start: int, count: int) -> str:
    shown = start + 1 if count else start
    return f"{shown}" if count == 1 else f"{shown},{count}"


def _emit(out: list[str], prefix: str, record: bytes) -> None:
    text = record.decode("utf-8")
    if text.endswith("\n"):
        out.append(prefix + text)
    else:
        out.append(prefix + text + "\n\\ No newline at end of file\n")


def unified_hunks(a: list[bytes], b: list[bytes], script: list[tuple[int, int, int, int]],
                  context: int = DEFAULT_CONTEXT) -> list[str]:
    """The ``@@`` hunks of ``script`` as git's xdl_emit_diff prints them (lines keep their ends)."""
    out: list[str] = []
    n1, n2 = len(a), len(b)
    func_prev = -1
    func = b""
    k = 0
    while k < len(script):
        # xdl_get_hunk: changes whose gap is at most twice the context share a hunk.
        last = k
        while last + 1 < len(script):
            gap = script[last + 1][0] - (script[last][0] + script[last][2])
            if gap > 2 * context:
                break
            last += 1
        first_i1, first_i2 = script[k][0], script[k][1]
        end_i1 = script[last][0] + script[last][2]
        end_i2 = script[last][1] + script[last][3]
        s1, s2 = max(first_i1 - context, 0), max(first_i2 - context, 0)
        tail = min(context, n1 - end_i1, n2 - end_i2)
        e1, e2 = end_i1 + tail, end_i2 + tail
        # The function line: searched upwards from just above the hunk, stopping where the
        # previous search began; when none is found git repeats the previous hunk's.
        line = s1 - 1
        while line != func_prev and 0 <= line < n1:
            name = _function_name(a[line])
            if name is not None:
                func = name
                break
            line -= 1
        func_prev = s1 - 1
        header = f"@@ -{_range(s1, e1 - s1)} +{_range(s2, e2 - s2)} @@"
        if func:
            header += " " + func.decode("utf-8", "ignore")  # a cut multi-byte character is dropped
        out.append(header + "\n")
        for i in range(s2, first_i2):
            _emit(out, " ", b[i])
        p1, p2 = first_i1, first_i2
        for i1, i2, c1, c2 in script[k:last + 1]:
            while p1 < i1 and p2 < i2:
                _emit(out, " ", b[p2])
                p1 += 1
                p2 += 1
            for i in range(i1, i1 + c1):
                _emit(out, "-", a[i])
            for i in range(i2, i2 + c2):
                _emit(out, "+", b[i])
            p1, p2 = i1 + c1, i2 + c2
        for i in range(end_i2, e2):
            _emit(out, " ", b[i])
        k = last + 1
    return out


# --- paths in patch headers ------------------------------------------------------------------

_C_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
              34: '\\"', 92: "\\\\"}


def quote_path(name: str) -> str:
    """A path as git writes it in a patch (quote.c's quote_c_style with core.quotePath on)."""
    raw = name.encode("utf-8", "surrogateescape")
    if all(32 <= byte < 127 and byte not in (34, 92) for byte in raw):
        return name
    parts = ['"']
    for byte in raw:
        if byte in _C_ESCAPES:
            parts.append(_C_ESCAPES[byte])
        elif 32 <= byte < 127:
            parts.append(chr(byte))
        else:
            parts.append(f"\\{byte:03o}")
    parts.append('"')
    return "".join(parts)


def _label(prefix: str, path: str) -> str:
    # diff.c: "--- a/name" gets a trailing tab when the name holds a space, so tools that cut
    # at whitespace still find its end.
    quoted = quote_path(prefix + path)
    return quoted + ("\t" if " " in path else "")


# --- one file --------------------------------------------------------------------------------

class _File:
    """One side of a path: the row's facts, with the content read at most once."""

    __slots__ = ("path", "size", "sha256", "binary", "mode", "link", "_read", "_data")

    def __init__(self, row: Sequence[Any], read: Callable[[str], bytes]) -> None:
        self.path, self.size, self.sha256 = row[0], row[1], row[2]
        self.binary, self.link = bool(row[3]), row[5]
        self.mode = MODE_LINK if self.link is not None else MODE_EXEC if row[4] else MODE_FILE
        if self.link is not None:
            self.binary = False
        self._read = read
        self._data: bytes | None = None

    def data(self) -> bytes:
        if self._data is None:
            self._data = self.link.encode("utf-8", "surrogateescape") if self.link is not None else self._read(self.path)
        return self._data

    def digest(self) -> str:
        if self.link is None and self.sha256:
            return self.sha256
        import hashlib

        return hashlib.sha256(self.data()).hexdigest()

    def same_content(self, other: _File) -> bool:
        if (self.link is None) != (other.link is None):
            return False
        if self.link is not None:
            return self.link == other.link
        if self.sha256 and other.sha256:
            return self.sha256 == other.sha256
        return self.size == other.size and self.data() == other.data()


def _section(old: _File | None, new: _File | None, *, context: int, size_limit: int,
             time_budget: float, clock: Callable[[], float]) -> tuple[str, int | None, int | None, str | None, bool]:
    """One ``diff --git`` section with content: (patch, added, removed, skipped reason, binary)."""
    path_a = (old or new).path
    path_b = (new or old).path
    head = [f"diff --git {quote_path('a/' + path_a)} {quote_path('b/' + path_b)}\n"]
    if old is None:
        head.append(f"new file mode {new.mode}\n")
    elif new is None:
        head.append(f"deleted file mode {old.mode}\n")
    elif old.mode != new.mode:
        head.append(f"old mode {old.mode}\nnew mode {new.mode}\n")
    mode_tail = f" {old.mode}" if old is not None and new is not None and old.mode == new.mode else ""
    binary = bool((old and old.binary) or (new and new.binary))
    skipped = None
    if not binary and max(old.size if old else 0, new.size if new else 0) > size_limit:
        skipped = "tooLarge"
    data_a = old.data() if old is not None else b""
    data_b = new.data() if new is not None else b""
    records_a = records_b = script = None
    if not binary and skipped is None:
        try:
            data_a.decode("utf-8")
            data_b.decode("utf-8")
        except UnicodeDecodeError:
            binary = True  # only UTF-8 text is shown as lines
    if not binary and skipped is None:
        records_a, records_b = split_records(data_a), split_records(data_b)
        try:
            script = edit_script(records_a, records_b, clock=clock, deadline=clock() + time_budget)
        except DiffTimeout:
            skipped = "timedOut"
    id_a = blob_id(data_a) if old is not None else _NULL_ID
    id_b = blob_id(data_b) if new is not None else _NULL_ID
    if binary or skipped is not None:
        # Full ids: git apply refuses a binary section whose index line is abbreviated.
        head.append(f"index {id_a}..{id_b}{mode_tail}\n")
        label_a = "/dev/null" if old is None else quote_path("a/" + path_a)
        label_b = "/dev/null" if new is None else quote_path("b/" + path_b)
        head.append(f"Binary files {label_a} and {label_b} differ\n")
        return "".join(head), None, None, skipped, binary
    head.append(f"index {id_a[:_ABBREV]}..{id_b[:_ABBREV]}{mode_tail}\n")
    added = sum(c2 for _, _, _, c2 in script)
    removed = sum(c1 for _, _, c1, _ in script)
    if script:  # git prints no ---/+++ and no hunk for an empty file added or deleted
        head.append(f"--- {'/dev/null' if old is None else _label('a/', path_a)}\n")
        head.append(f"+++ {'/dev/null' if new is None else _label('b/', path_b)}\n")
        head.extend(unified_hunks(records_a, records_b, script, context))
    return "".join(head), added, removed, None, False


def _entry(status: str, old: _File | None, new: _File | None, **extra: Any) -> dict[str, Any]:
    entry = {
        "path": (new or old).path,
        "status": status,
        "oldMode": old.mode if old else None,
        "newMode": new.mode if new else None,
        "binary": False,
        "added": 0,
        "removed": 0,
    }
    if status == "renamed":
        entry["oldPath"] = old.path
    entry.update(extra)
    return entry


# --- two trees -------------------------------------------------------------------------------

def _pair_renames(removed: dict[str, _File], added: dict[str, _File]) -> list[tuple[_File, _File]]:
    """Exact renames: same content and kind; a source with the same base name is preferred.

    Only sizes that occur on both sides are compared, so most files are never read here.
    """
    import posixpath

    sizes = {f.size for f in removed.values() if f.link is None} & {f.size for f in added.values() if f.link is None}
    by_key: dict[tuple[Any, ...], list[_File]] = {}
    for f in removed.values():
        if f.link is not None:
            by_key.setdefault(("link", f.link), []).append(f)
        elif f.size in sizes:
            by_key.setdefault(("file", f.size, f.digest()), []).append(f)
    pairs = []
    used: set[str] = set()
    for path in sorted(added):
        f = added[path]
        if f.link is not None:
            key: tuple[Any, ...] = ("link", f.link)
        elif f.size in sizes:
            key = ("file", f.size, f.digest())
        else:
            continue
        candidates = [c for c in by_key.get(key, ()) if c.path not in used]
        if not candidates:
            continue
        base = posixpath.basename(path)
        source = next((c for c in candidates if posixpath.basename(c.path) == base), candidates[0])
        used.add(source.path)
        pairs.append((source, f))
    return pairs


def _selected(path: str, prefix: str, path_filter: Callable[[str], bool] | None) -> bool:
    if prefix and not (path == prefix or path.startswith(prefix + "/")):
        return False
    return path_filter is None or bool(path_filter(path))


def diff_trees(rows_a: Iterable[Sequence[Any]], rows_b: Iterable[Sequence[Any]],
               read_a: Callable[[str], bytes], read_b: Callable[[str], bytes], *,
               path_prefix: str = "", path_filter: Callable[[str], bool] | None = None,
               context: int = DEFAULT_CONTEXT, size_limit: int = DEFAULT_SIZE_LIMIT,
               time_budget: float = DEFAULT_TIME_BUDGET,
               clock: Callable[[], float] | None = None) -> dict[str, Any]:
    """The changes from tree a to tree b: ``{"summary": {...}, "files": [entry, ...]}``.

    ``files`` is sorted by path (the new path for renames). Each entry: ``path``, ``status``
    (added, removed, modified, renamed, modeChanged), ``oldPath`` (renames), ``oldMode``,
    ``newMode``, ``binary``, ``added``/``removed`` (git's --numstat; None for binaries and for
    files not diffed), ``skipped`` ("tooLarge" or "timedOut", only when so), ``patch`` (its
    ``diff --git`` section(s)).
    """
    if clock is None:
        import time

        clock = time.monotonic
    if context < 0:
        from ..errors import invalid

        raise invalid(f"context must be 0 or more, got {context}", "context")
    prefix = path_prefix.strip("/")
    side_a = {row[0]: _File(row, read_a) for row in rows_a if _selected(row[0], prefix, path_filter)}
    side_b = {row[0]: _File(row, read_b) for row in rows_b if _selected(row[0], prefix, path_filter)}
    options = {"context": context, "size_limit": size_limit, "time_budget": time_budget, "clock": clock}

    entries: list[dict[str, Any]] = []
    removed = {p: f for p, f in side_a.items() if p not in side_b}
    added = {p: f for p, f in side_b.items() if p not in side_a}
    for old, new in _pair_renames(removed, added):
        del removed[old.path], added[new.path]
        head = [f"diff --git {quote_path('a/' + old.path)} {quote_path('b/' + new.path)}\n"]
        if old.mode != new.mode:
            head.append(f"old mode {old.mode}\nnew mode {new.mode}\n")
        head.append(f"similarity index 100%\nrename from {quote_path(old.path)}\nrename to {quote_path(new.path)}\n")
        entries.append(_unchanged_content("renamed", old, new, "".join(head)))

    for old in removed.values():
        entries.append(_content_entry("removed", old, None, options))
    for new in added.values():
        entries.append(_content_entry("added", None, new, options))
    for path in side_a.keys() & side_b.keys():
        old, new = side_a[path], side_b[path]
        if (old.link is None) != (new.link is None):
            # A symlink became a file or back: git writes a deletion and a creation.
            gone = _content_entry("removed", old, None, options)
            born = _content_entry("added", None, new, options)
            entry = _entry("modified", old, new, binary=gone["binary"] or born["binary"],
                           patch=gone["patch"] + born["patch"])
            for key in ("added", "removed"):
                entry[key] = None if gone[key] is None or born[key] is None else gone[key] + born[key]
            if gone.get("skipped") or born.get("skipped"):
                entry["skipped"] = gone.get("skipped") or born.get("skipped")
            entries.append(entry)
        elif old.same_content(new):
            if old.mode != new.mode:
                patch = (f"diff --git {quote_path('a/' + path)} {quote_path('b/' + path)}\n"
                         f"old mode {old.mode}\nnew mode {new.mode}\n")
                entries.append(_unchanged_content("modeChanged", old, new, patch))
        else:
            entries.append(_content_entry("modified", old, new, options))
    entries.sort(key=lambda e: (e["path"], e.get("oldPath", "")))
    return {"summary": _summary(entries), "files": entries}


def _unchanged_content(status: str, old: _File, new: _File, patch: str) -> dict[str, Any]:
    # git's --numstat says "-" for a binary file even when only its name or mode changed.
    binary = old.binary or new.binary
    counts = None if binary else 0
    return _entry(status, old, new, binary=binary, added=counts, removed=counts, patch=patch)


def _content_entry(status: str, old: _File | None, new: _File | None, options: dict[str, Any]) -> dict[str, Any]:
    patch, added, removed, skipped, binary = _section(old, new, **options)
    entry = _entry(status, old, new, binary=binary, added=added, removed=removed, patch=patch)
    if skipped:
        entry["skipped"] = skipped
    return entry


def _summary(entries: list[dict[str, Any]]) -> dict[str, int]:
    summary = {"filesChanged": len(entries), "added": 0, "removed": 0, "modified": 0, "renamed": 0,
               "modeChanged": 0, "binaryChanged": 0, "notDiffed": 0, "linesAdded": 0, "linesRemoved": 0}
    for e in entries:
        summary[e["status"]] += 1
        if e["binary"] and e["status"] in ("added", "removed", "modified"):
            summary["binaryChanged"] += 1
        if e.get("skipped"):
            summary["notDiffed"] += 1
        summary["linesAdded"] += e["added"] or 0
        summary["linesRemoved"] += e["removed"] or 0
    return summary


def whole_patch(result: dict[str, Any]) -> str:
    """The whole patch, every file, for plain CLI output (``git apply`` reads it)."""
    return "".join(entry["patch"] for entry in result["files"])


# --- paging ----------------------------------------------------------------------------------

def _fingerprint(files: list[dict[str, Any]]) -> str:
    import hashlib

    digest = hashlib.sha1()
    for entry in files:
        digest.update(f"{entry.get('oldPath', '')}\0{entry['path']}\0{len(entry['patch'])}\0".encode())
    return digest.hexdigest()[:12]


def _cursor(index: int, fingerprint: str) -> str:
    import base64

    return base64.urlsafe_b64encode(f"diff:{index}:{fingerprint}".encode()).decode().rstrip("=")


def _cursor_index(cursor: str, fingerprint: str, total: int) -> int:
    import base64

    from ..errors import invalid

    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, index_text, mark = text.split(":")
        index = int(index_text)
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        raise invalid("the cursor is not one this tool gave out; start again without a cursor", "cursor") from None
    if kind != "diff" or mark != fingerprint or not 0 <= index <= total:
        raise invalid("the cursor belongs to another diff (other versions, paths or filters); "
                      "start again without a cursor", "cursor")
    return index


def page(files: list[dict[str, Any]], cursor: str | None = None, budget_bytes: int = PAGE_BYTES,
         budget_lines: int = PAGE_LINES) -> tuple[list[dict[str, Any]], str | None]:
    """The next whole files of ``files`` whose patches fit the budget, and the cursor after them.

    At least one file is always returned; a file whose patch alone exceeds the budget is cut
    (its copy gets ``patchCut: true`` and a marker line) and the cursor still moves past it.
    The cursor is None after the last file. Cursors are opaque, deterministic, and refused
    (INVALID_ARGUMENT) for a different list of files.
    """
    fingerprint = _fingerprint(files)
    start = 0 if cursor is None else _cursor_index(cursor, fingerprint, len(files))
    chunk: list[dict[str, Any]] = []
    used_bytes = used_lines = 0
    index = start
    while index < len(files):
        entry = files[index]
        patch = entry["patch"]
        size, lines = len(patch.encode("utf-8")), patch.count("\n")
        if used_bytes + size > budget_bytes or used_lines + lines > budget_lines:
            if chunk:
                break
            entry = dict(entry, patch=_cut_patch(patch, budget_bytes, budget_lines), patchCut=True)
            chunk.append(entry)
            index += 1
            break
        chunk.append(entry)
        used_bytes += size
        used_lines += lines
        index += 1
    return chunk, (_cursor(index, fingerprint) if index < len(files) else None)


def _cut_patch(patch: str, budget_bytes: int, budget_lines: int) -> str:
    lines = patch.split("\n")[:-1]  # every patch line ends with "\n"
    room_bytes = budget_bytes - len(CUT_MARKER) - 16
    kept: list[str] = []
    used = 0
    for line in lines:
        size = len(line.encode("utf-8")) + 1
        if len(kept) + 1 >= budget_lines or used + size > room_bytes:
            break
        kept.append(line)
        used += size
    rest = len(lines) - len(kept)
    return "".join(line + "\n" for line in kept) + CUT_MARKER.format(n=rest)
