"""Recall of the symbol extractors over real published sources: Kotlin, C# and Elixir (issue 16).

The expected definitions were written down by reading each file in tests/data/symbols/ (see the
README there for where each file comes from); for Elixir, Elixir's own parser is a second oracle
when it is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from codenav.search.symbols import Symbol, extract

DATA = Path(__file__).resolve().parent / "data" / "symbols"


def rows(symbols: list[Symbol]) -> list[tuple]:
    """(line, kind, container, name, exported) of each symbol, in order."""
    return [(s.line, s.kind, s.container, s.name, s.exported) for s in symbols]


def read(relative: str) -> list[Symbol]:
    return extract(relative, (DATA / relative).read_bytes())


# --- Kotlin: react-native-screens' Android sources ---------------------------------------------------

RNS = "react-native-screens-4.30.1"


def test_kotlin_sheet_detents() -> None:
    """Every declaration of SheetDetents.kt — a class, its private and internal members, a companion's const — is found."""
    c = "SheetDetents"
    internal = [(35, "at"), (37, "shortest"), (39, "highest"), (41, "heightAt"), (53, "firstHeight"),
                (55, "maxAllowedHeight"), (57, "maxAllowedHeightForFitToContents"), (68, "halfExpandedRatio"),
                (73, "expandedOffsetFromTop"), (82, "peekHeight"), (84, "sheetStateFromIndex"),
                (86, "indexFromSheetState")]
    symbols = read(f"{RNS}/bottomsheet/SheetDetents.kt")
    assert rows(symbols) == [
        (1, "namespace", "", "com.swmansion.rnscreens.bottomsheet", True), (5, "class", "", c, True),
        (8, "property", c, "rawDetents", False), (33, "property", c, "count", False),
        *[(line, "method", c, name, False) for line, name in internal],
        (88, "class", c, "Companion", True), (92, "constant", c + ".Companion", "SHEET_FIT_TO_CONTENTS", True)]
    constant = symbols[-1]
    assert (constant.signature, constant.doc) == (
        "const val SHEET_FIT_TO_CONTENTS",
        "This value describes value in sheet detents array that will be treated as `fitToContents` option.")
    assert symbols[1].end_line == 94


def test_kotlin_generic_extension_functions() -> None:
    """Every generic extension function of BottomSheetBehaviorExt.kt is found at its line, internal or private."""
    symbols = read(f"{RNS}/bottomsheet/BottomSheetBehaviorExt.kt")
    assert rows(symbols) == [
        (1, "namespace", "", "com.swmansion.rnscreens.bottomsheet", True),
        (6, "function", "", "updateMetrics", False), (19, "function", "", "useSingleDetent", False),
        (36, "function", "", "useTwoDetents", False), (51, "function", "", "useThreeDetents", False),
        (70, "function", "", "maybeApplyManualInsetsAdjustmentWorkaround", False),
        (89, "function", "", "fitToContentsSheetHeight", False)]
    assert [s.end_line for s in symbols[1:]] == [17, 34, 49, 68, 87, 93]
    assert symbols[-1].signature == "internal fun <T : View> BottomSheetBehavior<T>.fitToContentsSheetHeight(): Int"


def test_kotlin_view_with_annotations_accessors_and_a_nested_enum() -> None:
    """ScreenStackHeaderSubview.kt: an annotated class, properties with accessors and KDoc, overrides, a nested enum."""
    c = "ScreenStackHeaderSubview"
    symbols = read(f"{RNS}/ScreenStackHeaderSubview.kt")
    assert rows(symbols) == [
        (1, "namespace", "", "com.swmansion.rnscreens", True), (8, "class", "", c, True),
        (11, "property", c, "reactWidth", False), (12, "property", c, "reactHeight", False),
        (19, "property", c, "isReactSizeSet", False), (21, "property", c, "type", True),
        (33, "property", c, "isHiddenBySearchBar", False), (36, "method", c, "setHiddenBySearchBar", False),
        (41, "method", c, "setVisibility", True), (51, "property", c, "config", True),
        (54, "method", c, "onMeasure", True), (74, "method", c, "onLayout", True), (96, "enum", c, "Type", True),
        *[(97 + k, "constant", c + ".Type", name, True)
          for k, name in enumerate(["LEFT", "CENTER", "RIGHT", "BACK", "SEARCH_BAR"])]]
    assert symbols[1].signature == \
        "class ScreenStackHeaderSubview(context: ReactContext?) : FabricEnabledHeaderSubviewViewGroup(context)"
    assert symbols[4].doc.startswith("Semantics: true iff we **believe**")


# --- C#: pythonnet's runtime -------------------------------------------------------------------------

def test_csharp_ref_struct_with_operators() -> None:
    """BorrowedReference.cs: a `readonly ref struct` (internal), its field, properties, constructor and operators."""
    c = "Python.Runtime.BorrowedReference"
    assert rows(read("pythonnet-3.2.1/BorrowedReference.cs")) == [
        (1, "namespace", "", "Python.Runtime", True), (10, "class", "Python.Runtime", "BorrowedReference", False),
        (12, "property", c, "pointer", False), (13, "property", c, "IsNull", False),
        (17, "method", c, "DangerousGetAddress", False), (20, "method", c, "DangerousGetAddressOrNull", False),
        (22, "property", c, "Null", False), (27, "method", c, "BorrowedReference", False),
        *[(line, "method", c, name, False) for line, name in [
            (32, "operator =="), (34, "operator !="), (36, "operator =="), (38, "operator !="), (40, "operator =="),
            (42, "operator !="), (45, "Equals"), (52, "operator BorrowedReference"),
            (53, "operator BorrowedReference"), (55, "GetHashCode")]]]


def test_csharp_file_scoped_namespace_class() -> None:
    """EventHandlerCollection.cs: a file-scoped namespace, an attributed class and its constructors and methods."""
    c = "Python.Runtime.EventHandlerCollection"
    symbols = read("pythonnet-3.2.1/EventHandlerCollection.cs")
    assert rows(symbols) == [
        (7, "namespace", "", "Python.Runtime", True), (10, "class", "Python.Runtime", "EventHandlerCollection", False),
        (12, "property", c, "info", False), (13, "method", c, "EventHandlerCollection", False),
        (21, "method", c, "AddEventHandler", False), (59, "method", c, "RemoveEventHandler", False),
        (115, "method", c, "EventHandlerCollection", False), (121, "method", c, "GetObjectData", False)]
    assert symbols[4].doc == "Register a new Python object event handler with the event."
    assert symbols[6].signature == \
        "protected EventHandlerCollection(SerializationInfo info, StreamingContext context) : base(info, context)"


# --- Elixir: Elixir's own standard library ---------------------------------------------------------

VERSION_EX = [  # (container, kind, exported, [(line, name)]) in source order
    ("", "module", True, [(1, "Version")]),
    ("Version", "class", True, [(106, "Version")]),
    ("Version", "type", True, [(108, "version"), (109, "requirement"), (110, "major"), (111, "minor"),
                               (112, "patch"), (113, "pre"), (114, "build"), (115, "t")]),
    ("Version", "module", True, [(117, "Requirement")]),
    ("Version.Requirement", "class", True, [(127, "Requirement")]),
    ("Version.Requirement", "type", True, [(129, "t")]),
    ("Version.Requirement", "type", False, [(134, "matchable")]),
    ("Version.Requirement", "function", True, [(141, "new"), (147, "compile_requirement"), (153, "match?")]),
    ("Version.Requirement", "function", False, [
        (157, "match_lexed?"), (160, "match_lexed?"), (163, "match_lexed?"), (166, "match_op?"), (170, "match_op?"),
        (174, "match_op?"), (180, "match_op?"), (186, "match_op?"), (190, "match_op?"), (194, "match_op?"),
        (198, "match_op?"), (202, "compare")]),
    ("Version", "module", True, [(219, "InvalidRequirementError")]),
    ("Version.InvalidRequirementError", "class", True, [(220, "InvalidRequirementError")]),
    ("Version.InvalidRequirementError", "function", True, [(223, "exception"), (228, "message")]),
    ("Version", "module", True, [(233, "InvalidVersionError")]),
    ("Version.InvalidVersionError", "class", True, [(234, "InvalidVersionError")]),
    ("Version.InvalidVersionError", "function", True, [(237, "exception"), (242, "message")]),
    ("Version", "function", True, [(284, "match?"), (286, "match?"), (290, "match?"), (334, "compare")]),
    ("Version", "function", False, [(338, "do_compare")]),
    ("Version", "function", True, [(367, "parse"), (394, "parse!"), (415, "parse_requirement"),
                                   (438, "parse_requirement!"), (451, "compile_requirement")]),
    ("Version", "function", False, [(453, "to_matchable"), (457, "to_matchable")]),
    ("Version", "function", True, [(479, "to_string")]),
    ("Version", "function", False, [(485, "pre_to_string"), (489, "pre_to_string")]),
    ("Version", "module", True, [(497, "Parser")]),
    ("Version.Parser", "function", True, [(511, "lexer")]),
    ("Version.Parser", "function", False, [
        (516, "lexer"), (521, "lexer"), (526, "lexer"), (531, "lexer"), (535, "lexer"), (539, "lexer"),
        (543, "maybe_prepend_buffer"), (545, "maybe_prepend_buffer"), (549, "maybe_prepend_buffer"),
        (552, "revert_lexed"), (559, "revert_lexed"), (565, "revert_lexed"), (567, "validate_requirement")]),
    ("Version.Parser", "function", True, [(576, "parse_requirement"), (580, "parse_version")]),
    ("Version.Parser", "function", False, [
        (598, "require_digits"), (600, "require_digits"), (604, "leading_zero?"), (605, "leading_zero?"),
        (607, "parse_digits"), (610, "parse_digits"), (611, "parse_digits"), (613, "maybe_patch"),
        (614, "maybe_patch"), (615, "maybe_patch"), (617, "optional_dot_separated"), (619, "optional_dot_separated"),
        (629, "convert_parts_to_integer"), (643, "convert_parts_to_integer"), (647, "valid_identifier?"),
        (655, "valid_identifier?"), (659, "valid_identifier?")]),
    ("String.Chars.Version", "function", True, [(666, "to_string")]),
    ("String.Chars.Version.Requirement", "function", True, [(670, "to_string")]),
    ("Inspect.Version.Requirement", "function", True, [(676, "inspect")]),
]


def test_elixir_version_module() -> None:
    """version.ex: nested modules, structs and exceptions, public/private types, every def/defp clause, a
    defdelegate and the defimpl blocks at the end are found at their lines."""
    expected = [(line, kind, container, name, exported)
                for container, kind, exported, found in VERSION_EX for line, name in found]
    symbols = read("elixir-1.14.0/version.ex")
    assert rows(symbols) == expected
    assert symbols[0].doc.startswith("Functions for parsing and matching versions")  # a ~S\"\"\" heredoc


def test_elixir_protocol_and_implementations() -> None:
    """string/chars.ex: a protocol and its function, and each defimpl's clauses under Protocol.Target."""
    assert rows(read("elixir-1.14.0/string/chars.ex")) == [
        (3, "module", "String", "Chars", True), (22, "function", "String.Chars", "to_string", True),
        *[(line, "function", f"String.Chars.{impl}", "to_string", True) for line, impl in [
            (26, "Atom"), (30, "Atom"), (36, "BitString"), (40, "BitString"), (49, "List"), (53, "Integer"),
            (59, "Float")]]]


ELIXIR_LIST_DEFINITIONS = r'''
defmodule ListDefinitions do
  @defs [:def, :defp, :defmacro, :defmacrop, :defguard, :defguardp, :defdelegate]
  @types [:type, :typep, :opaque, :callback, :macrocallback]

  # a definition's head is not walked: `defmacro def(x)` defines `def`, it does not call it
  def walk({form, meta, [head | rest]} = node, acc) when form in @defs do
    case name_of(head) do
      nil -> {node, acc}
      name -> {{form, meta, rest}, [{name, meta[:line]} | acc]}
    end
  end

  def walk({form, meta, [alias | _]} = node, acc) when form in [:defmodule, :defprotocol] do
    {node, [{alias |> Macro.to_string() |> String.split(".") |> List.last(), meta[:line]} | acc]}
  end

  def walk({form, meta, _} = node, acc) when form in [:defstruct, :defexception], do: {node, [{"", meta[:line]} | acc]}

  def walk({:@, meta, [{attr, _, [spec]}]} = node, acc) when attr in @types do
    case spec do
      {:when, _, [{:"::", _, [head | _]} | _]} -> {node, [{name_of(head), meta[:line]} | acc]}
      {:"::", _, [head | _]} -> {node, [{name_of(head), meta[:line]} | acc]}
      _ -> {node, acc}
    end
  end

  def walk(node, acc), do: {node, acc}

  defp name_of({:when, _, [head | _]}), do: name_of(head)
  defp name_of({name, _, args}) when is_atom(name) and (is_list(args) or is_atom(args)), do: Atom.to_string(name)
  defp name_of(_), do: nil
end

for file <- System.argv() do
  {:ok, ast} = Code.string_to_quoted(File.read!(file), file: file)
  {_, found} = Macro.prewalk(ast, [], &ListDefinitions.walk/2)
  for {name, line} <- Enum.reverse(found), do: IO.puts("#{file}\t#{name}\t#{line}")
end
'''


def test_elixir_recall_against_elixirs_own_parser(tmp_path: Path) -> None:
    """Every definition Elixir's parser (Code.string_to_quoted) finds in the copied files is returned at the same line,
    and nothing else (defimpl blocks give no symbol of their own; a struct is named after its module)."""
    elixir = shutil.which("elixir")
    if elixir is None:
        pytest.skip("elixir is not installed")
    program = tmp_path / "list_definitions.exs"
    program.write_text(ELIXIR_LIST_DEFINITIONS)
    files = [DATA / "elixir-1.14.0" / "version.ex", DATA / "elixir-1.14.0" / "string" / "chars.ex"]
    done = subprocess.run([elixir, str(program), *map(str, files)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    expected: dict[str, set[tuple[str, int]]] = {str(file): set() for file in files}
    for line in done.stdout.splitlines():
        file, name, lineno = line.split("\t")
        expected[file].add((name, int(lineno)))
    assert sum(map(len, expected.values())) == 98
    for file in files:
        got = {("" if s.kind == "class" else s.name, s.line) for s in extract(file.name, file.read_bytes())}
        assert got == expected[str(file)], (file.name, sorted(expected[str(file)] - got), sorted(got - expected[str(file)]))
