"""git's line diff, in Python: the Myers diff of git's xdiff with its preprocessing, cost
heuristics, group sliding with the indent heuristic, and unified hunks with git's function
names (see search/diff.py for the contract). Learned from git's xdiff; no code copied.

``edit_script(a, b)`` gives the changed ranges; ``unified_hunks`` writes the ``@@`` hunks.
It is over 500 lines on purpose: one algorithm whose parts (discards, the split, sliding,
scores) only make sense read together, as in git's xdiffi.c.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is for annotations only
if TYPE_CHECKING:
    from collections.abc import Callable

DEFAULT_CONTEXT = 3

class DiffTimeout(Exception):
    """The diff of one file ran past its time budget."""


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
                # a snake: the _SNAKE_CNT records before (i1, i2) are equal
                if (v > _K_HEUR * ec and v > best and off1 + _SNAKE_CNT <= i1 < lim1
                        and off2 + _SNAKE_CNT <= i2 < lim2
                        and h1[i1 - _SNAKE_CNT:i1] == h2[i2 - _SNAKE_CNT:i2]):
                    best = v
                    found = (i1, i2)
            if best > 0:
                return found[0], found[1], True, False
            best = 0
            for d in range(bmax, bmin - 1, -2):
                dd = d - bmid if d > bmid else bmid - d
                i1 = kvdb[d]
                i2 = i1 - d
                v = (lim1 - i1) + (lim2 - i2) - dd
                # a snake: the _SNAKE_CNT records from (i1, i2) on are equal
                if (v > _K_HEUR * ec and v > best and off1 < i1 <= lim1 - _SNAKE_CNT
                        and off2 < i2 <= lim2 - _SNAKE_CNT
                        and h1[i1:i1 + _SNAKE_CNT] == h2[i2:i2 + _SNAKE_CNT]):
                    best = v
                    found = (i1, i2)
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


def _nearest_indent(side: _Side, records: range) -> tuple[int, int]:
    """(blank records passed over, the indent of the first non-blank one) along ``records``: the
    indent is -1 when there is none, 0 once _MAX_BLANKS blanks are passed (measure_split)."""
    blanks = 0
    for i in records:
        indent = side.indent(i)
        if indent != -1:
            return blanks, indent
        blanks += 1
        if blanks == _MAX_BLANKS:
            return blanks, 0
    return blanks, -1


def _split_score(side: _Side, split: int, score: list[int]) -> None:
    """Add the badness of a split just above record ``split`` to score [indent, penalty]."""
    n = side.n
    if split >= n:
        end_of_file, indent = True, -1
    else:
        end_of_file, indent = False, side.indent(split)
    pre_blank, pre_indent = _nearest_indent(side, range(split - 1, -1, -1))
    post_blank, post_indent = _nearest_indent(side, range(split + 1, n))

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
