"""Kotlin symbol extraction (.kt, .kts): declarations, the tokenizer's strings and comments, robustness, sources jars."""

from __future__ import annotations

import random
import time

import pytest

from codenav.search.symbols import Skipped, Symbol, extract, language
from codenav.search.symbols.kotlin import tokenize
from tests.fakes.http import FakeServer
from tests.fakes.maven import FakeMaven


def rows(symbols: list[Symbol]) -> list[tuple]:
    """(line, kind, container, name, exported) of each symbol, in order."""
    return [(s.line, s.kind, s.container, s.name, s.exported) for s in symbols]


def by_name(symbols: list[Symbol], name: str) -> list[Symbol]:
    return [s for s in symbols if s.name == name]


KOTLIN_SOURCE = b'''\
@file:JvmName("Shapes")
package com.example.shapes

import kotlin.math.PI
import com.example.internal.Helper as H

/** The unit every length is in. */
const val UNIT = "mm"
typealias Handler<T> = (T) -> Unit
internal val cache = mutableMapOf<String, List<Int>>()

/**
 * A shape.
 *
 * @property name what it is called
 */
@Serializable
sealed class Shape(val name: String, private val id: Int = 0) : Comparable<Shape> {
    abstract fun area(): Double
    override fun compareTo(other: Shape): Int = area().compareTo(other.area())

    data class Circle(val radius: Double) : Shape("circle") {
        override fun area() = PI * radius * radius
    }

    object Empty : Shape("empty") { override fun area() = 0.0 }

    companion object Factory {
        const val MAX = 10
        @JvmStatic fun of(vararg sides: Double): Shape = Empty
    }
}

enum class Color(val rgb: Int) {
    RED(0xFF0000),
    GREEN(0x00FF00) { override fun label() = "go" },
    BLUE(0x0000FF);

    open fun label(): String = name.lowercase()
}

interface Drawable {
    val layer: Int
    fun draw(canvas: Canvas)
    fun clear() {}
}

fun interface Visitor<in T> { fun visit(item: T) }

annotation class Marker(val note: String)

private class Hidden {
    fun inside() {}
    class Nested { fun deep() {} }
}

suspend inline fun <reified T : Any> String.parseAs(): T? where T : Comparable<T> {
    val fake = "fun notAFunction() { class NotAClass }"
    val template = "${ "}" + "{" }${'}'} class AlsoNot"
    val raw = """
        fun notEither() = 1 ${ if (true) "}" else "{" }
    """
    /* a /* nested */ class InComment */
    // fun inLineComment()
    val listener = object : Runnable { override fun run() {} }
    return null
}

operator fun Vector.plus(other: Vector): Vector = Vector(x + other.x)
val String.lastChar: Char get() = this[length - 1]
fun `names with spaces`() = Unit

class Account private constructor(
    @Transient var balance: Long,
    internal val owner: String,
) {
    constructor(owner: String) : this(0, owner)
    init { require(balance >= 0) }
    var limit: Long = 0
        private set
    lateinit var history: List<Long>
    val total by lazy { balance + limit }
}
'''


def test_kotlin_declarations_kinds_containers_and_exports() -> None:
    """Kotlin packages, classes, objects, companions, enums with entries, interfaces, fun interfaces, annotation classes,
    functions (extension, generic, suspend/inline/operator), properties, constants, typealiases and constructor
    properties are found at their lines; strings, templates and comments with keywords fake nothing."""
    symbols = extract("src/main/kotlin/com/example/Shapes.kt", KOTLIN_SOURCE)
    s, f, c, a = "Shape", "Shape.Factory", "Color", "Account"
    assert rows(symbols) == [
        (2, "namespace", "", "com.example.shapes", True),
        (8, "constant", "", "UNIT", True), (9, "type", "", "Handler", True), (10, "property", "", "cache", False),
        (18, "class", "", "Shape", True), (18, "property", s, "name", True), (18, "property", s, "id", False),
        (19, "method", s, "area", True), (20, "method", s, "compareTo", True),
        (22, "class", s, "Circle", True), (22, "property", s + ".Circle", "radius", True),
        (23, "method", s + ".Circle", "area", True),
        (26, "class", s, "Empty", True), (26, "method", s + ".Empty", "area", True),
        (28, "class", s, "Factory", True), (29, "constant", f, "MAX", True), (30, "method", f, "of", True),
        (34, "enum", "", "Color", True), (34, "property", c, "rgb", True),
        (35, "constant", c, "RED", True), (36, "constant", c, "GREEN", True), (37, "constant", c, "BLUE", True),
        (39, "method", c, "label", True),
        (42, "interface", "", "Drawable", True), (43, "property", "Drawable", "layer", True),
        (44, "method", "Drawable", "draw", True), (45, "method", "Drawable", "clear", True),
        (48, "interface", "", "Visitor", True), (48, "method", "Visitor", "visit", True),
        (50, "class", "", "Marker", True), (50, "property", "Marker", "note", True),
        (52, "class", "", "Hidden", False), (53, "method", "Hidden", "inside", False),
        (54, "class", "Hidden", "Nested", False), (54, "method", "Hidden.Nested", "deep", False),
        (57, "function", "", "parseAs", True),
        (69, "function", "", "plus", True), (70, "property", "", "lastChar", True),
        (71, "function", "", "names with spaces", True),
        (73, "class", "", "Account", True), (74, "property", a, "balance", True), (75, "property", a, "owner", False),
        (77, "method", a, "Account", True), (79, "property", a, "limit", True),
        (81, "property", a, "history", True), (82, "property", a, "total", True),
    ]


def test_kotlin_signatures_docs_and_end_lines() -> None:
    """Signatures are the declaration's header on one line (annotations and bodies left out); KDoc gives its first line."""
    symbols = extract("Shapes.kt", KOTLIN_SOURCE)
    shape = by_name(symbols, "Shape")[0]
    assert (shape.signature, shape.doc, shape.end_line) == (
        "sealed class Shape(val name: String, private val id: Int = 0) : Comparable<Shape>", "A shape.", 32)
    assert by_name(symbols, "parseAs")[0].signature == \
        "suspend inline fun <reified T : Any> String.parseAs(): T? where T : Comparable<T>"
    assert (by_name(symbols, "parseAs")[0].end_line, by_name(symbols, "area")[0].end_line) == (67, 19)
    assert by_name(symbols, "UNIT")[0].doc == "The unit every length is in."
    assert by_name(symbols, "of")[0].signature == "fun of(vararg sides: Double): Shape"
    assert by_name(symbols, "lastChar")[0].signature == "val String.lastChar: Char"
    assert by_name(symbols, "Handler")[0].signature == "typealias Handler<T> = (T) -> Unit"
    assert by_name(symbols, "Account")[1].signature == "constructor(owner: String) : this(0, owner)"
    assert by_name(symbols, "Account")[0].signature == "class Account private constructor(@Transient var balance: Long, internal val owner: String)"
    assert by_name(symbols, "balance")[0].signature == "var balance: Long"
    assert by_name(symbols, "Factory")[0].end_line == 31


def test_an_unnamed_companion_is_called_companion() -> None:
    """``companion object { … }`` is the class ``Companion`` inside its class; its members are contained in it."""
    source = b"class Cache {\n    companion object {\n        const val SIZE = 4\n        fun empty() = Cache()\n    }\n}\n"
    assert rows(extract("Cache.kt", source)) == [
        (1, "class", "", "Cache", True), (2, "class", "Cache", "Companion", True),
        (3, "constant", "Cache.Companion", "SIZE", True), (4, "method", "Cache.Companion", "empty", True)]


def test_kotlin_scripts_are_read_and_local_declarations_are_not_symbols() -> None:
    """A .kts file's top-level functions and properties are symbols; what a block or lambda declares is not."""
    source = b'plugins {\n    id("java")\n}\nval jvm = "17"\nfun helper(x: Int) = x\ntasks.register("x") {\n    val inner = 1\n    fun local() {}\n}\n'
    assert language("build.gradle.kts") == "kotlin"
    assert rows(extract("build.gradle.kts", source)) == [
        (4, "property", "", "jvm", True), (5, "function", "", "helper", True)]


def test_the_tokenizer_reads_templates_raw_strings_nested_comments_and_char_literals() -> None:
    """A template's braces and quotes, a raw string's lines, a nested comment and ``'"'`` are each one token or none."""
    text = 'val a = "x${ m["}"] }y"\nval b = """\n"quoted" ${ "{" }\n"""\n/* 1 /* 2 */ 3 */ val c = \'"\'\n'
    tokens, _docs = tokenize(text)
    assert [(t[1], t[4]) for t in tokens] == [
        ("val", 1), ("a", 1), ("=", 1), ('"x${ m["}"] }y"', 1),
        ("val", 2), ("b", 2), ("=", 2), ('"""\n"quoted" ${ "{" }\n"""', 2),
        ("val", 5), ("c", 5), ("=", 5), ("'\"'", 5)]


def test_keywords_inside_expressions_are_not_declarations() -> None:
    """``Foo::class``, an anonymous ``object :``, ``fun(x)`` literals and soft keywords used as names give no symbol."""
    source = b'''\
class Host {
    val kind = Host::class.java
    val handler = fun(x: Int): Int { return x }
    val value = data
    fun run(open: Boolean) = object : Runnable { override fun run() {} }
}
'''
    assert rows(extract("Host.kt", source)) == [
        (1, "class", "", "Host", True), (2, "property", "Host", "kind", True),
        (3, "property", "Host", "handler", True), (4, "property", "Host", "value", True),
        (5, "method", "Host", "run", True)]


# --- robustness ------------------------------------------------------------------------------------

def test_broken_kotlin_never_raises_and_finishes_quickly() -> None:
    """Truncations of a real-looking file, unbalanced braces, unclosed strings and comments, random bytes and a
    2 MB one-line file each give a list or a Skipped, never an exception, and all of them finish within seconds."""
    rng = random.Random(16)
    cases = [KOTLIN_SOURCE[:cut] for cut in range(0, len(KOTLIN_SOURCE), 37)]
    cases += [b"class A {" * 2000, b"}" * 5000 + b"fun f() {}", b"fun f(" * 3000, b"class <" * 3000,
              b'val s = "${' * 2000, b'val s = """' + b"${ {" * 2000, b"/* /* /*" * 1000 + b"\nfun f() {}",
              b"'" * 3000, b"@" * 3000 + b"fun", b"enum class E { " + b"A(" * 3000, b"val " * 5000,
              b"fun " * 5000, b"object companion object " * 1000]
    alphabet = b'abc fun val class object {}()<>:,."$\'`/*@=\n'
    cases += [bytes(rng.choice(alphabet) for _ in range(4000)) for _ in range(20)]
    cases.append(b"fun a() { val x = 1 }; " * (2 * 1024 * 1024 // 23))  # 2 MB on one line
    started = time.monotonic()
    for data in cases:
        result = extract("Broken.kt", data)
        assert isinstance(result, (list, Skipped))
    assert isinstance(extract("Long.kt", cases[-1]), Skipped)  # refused by its line length, in milliseconds
    assert time.monotonic() - started < 20


def test_the_scanner_itself_survives_pathological_input_in_bounded_time() -> None:
    """Past the size guard of extract(): a 2 MB one-line string, and 64 kB of open templates, nested comments, open
    braces and open generics, each go through the Kotlin scanner without raising, in linear time."""
    from codenav.search.symbols import kotlin

    size = 64 * 1024
    cases = [b'val s = "' + b"x" * (2 * 1024 * 1024) + b'"', b'val s = """' + b"${ {" * (size // 4),
             b'val s = "${' * (size // 11), b"/* /* " * (size // 6), b"{" * size, b"fun f(): A<" * (size // 11),
             b"@A(" * (size // 3)]
    started = time.monotonic()
    for data in cases:
        assert isinstance(kotlin.extract("Huge.kt", data), list)
    assert time.monotonic() - started < 30


def test_a_long_kotlin_file_is_scanned_in_linear_time() -> None:
    """A file of 2,000 classes (about 0.2 MB) is read whole, in no more than about ten times the time of 200."""
    unit = b"/** Doc. */\nclass C%d(val x: Int) {\n    fun f(y: String = \"${x}\"): Int = y.length\n}\n"
    small = b"".join(unit.replace(b"%d", str(k).encode()) for k in range(200))
    large = b"".join(unit.replace(b"%d", str(k).encode()) for k in range(2000))
    started = time.monotonic()
    assert len(extract("Small.kt", small)) == 600
    small_time = time.monotonic() - started
    started = time.monotonic()
    assert len(extract("Large.kt", large)) == 6000
    assert time.monotonic() - started < max(25 * small_time, 2.0)


# --- sources jars --------------------------------------------------------------------------------

def test_kotlin_files_of_a_maven_sources_jar_are_indexed(monkeypatch: pytest.MonkeyPatch) -> None:
    """search_symbols over a Maven artifact whose -sources.jar holds .kt and .java files finds the declarations of both."""
    from codenav import tools

    with FakeServer() as server:
        repo = FakeMaven(server)
        repo.publish("org.example:shapes", "1.0", {
            "com/example/Shapes.kt": KOTLIN_SOURCE,
            "com/example/Legacy.java": b"package com.example;\npublic class Legacy { public void shape() {} }\n"})
        monkeypatch.setenv("CODENAV_MAVEN_REPOSITORY", repo.url)
        target = {"registry": "maven", "package_name": "org.example:shapes", "version": "1.0",
                  "wait_timeout_ms": 60000}
        result = tools.load("search_symbols").run({**target, "query": "Shape"})
        circle = tools.load("search_symbols").run({**target, "query": "Shape.Circle"})
    assert [(r["path"], r["line"], r["kind"]) for r in result["results"]] == [
        ("com/example/Shapes.kt", 18, "class"), ("com/example/Legacy.java", 2, "method")]  # same case first
    assert [(r["path"], r["line"], r["kind"], r["exported"]) for r in circle["results"]] == [
        ("com/example/Shapes.kt", 22, "class", True)]
