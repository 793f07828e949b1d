"""Samples more than one test module reads: the symbol scanners' sources (and their memory
form's), and a small locked project for list_deps."""

from __future__ import annotations

import json
from pathlib import Path

# A TypeScript module with every declaration form the scanner reports.
TS_SOURCE = '''\
// function notReal() {} in a comment
/* class NotAClass {} export const alsoNot = 1 */
import { x } from './x';
import type { T } from './t';
const s1 = "function fakeA() {}";
const s2 = 'class FakeB {}';
const tpl = `export function fakeC() { ${ `nested ${ "class FakeD {}" } back` } } const fakeE = 1`;
const re = /function fakeF\\/ [/]class\\s+Fake/g, ratio = a / b / c;
let counter = 0
/** Adds two numbers. */
export function add<T extends number>(a: T, b: T): T { return a + b; }
export default class Widget<P = {}> extends Base<P> implements IWidget {
  static count = 0;
  #secret = 1;
  private hidden: string;
  name?: string = "w";
  constructor(private readonly opts: Options) { super(); }
  get size(): number { return 1; }
  set size(v: number) {}
  static create(): Widget { return new Widget({}); }
  async *items(): AsyncGenerator<number> { yield 1; }
  handler = (e: Event) => { console.log(`class X {}`); };
  @Input() label: string;
  render(): JSX.Element;
  render(): string { return "function nope() {}"; }
}
export const enum Color { Red = 1, Green, "Blue" = 4 }
export interface Shape<T> extends Base { area(): number; readonly sides: number; [key: string]: unknown; new (x: number): Shape<T>; map<U>(fn: (t: T) => U): Shape<U>, }
export type Pair<A, B = A> = { first: A; second: B };
type Fn = (a: number, b: Map<string, number>) => void
export namespace Outer.Inner { export const deep = 1; function hidden() {} export class Nested { run() {} } }
declare module 'my-mod' {
  export function fromMod(x: string): number;
  interface ModOpts { verbose: boolean }
}
declare global { interface Window { myGlobal: string } }
declare function overloaded(a: string): string;
declare function overloaded(a: number): number;
export const arrow = async (a: number): Promise<number> => a * 2;
export const typed: Fn = function named(a, b) {};
export { add as plus, counter };
export { something as other, default as dflt } from './other';
export * from './all';
export * as ns from './ns';
const MAX_SIZE = 10, minSize = 1;
const { alpha, beta: gamma, ...rest } = obj;
abstract class Abs { abstract run(): void; protected step() {} }
function* gen() {}
if (x) { function insideIf() {} }
'''

# A JavaScript module: CommonJS and ES exports, classes, functions, regex and template literals.
JS_SOURCE = '''\
'use strict'
var express = require('express')
var app = exports = module.exports = {};
exports.version = '1.0.0';
module.exports.helper = function helper(a) {};
exports.Klass = class Klass {};
app.use = function use(fn) {
  var inner = 1;
  function innerFn() {}
};
Router.prototype.route = function route(path) {};
Router.prototype = { get: function () {}, post(a) {}, _priv: 1 };
function Router() {}
const x = a
/foo/g.test(b)
const y = c
  / d
const z = `${ {a: '}'}['a'] }` , w = 2
function after() {}
(function (root) {
  function wrapped() {}
})(this);
module.exports = { one, two: () => 2, three() {}, get four() { return 4; } };
var q = "a /* not a comment */ b", r = '// nor this'; function afterStrings() {}
var rx = /[/*]+/, d2 = 4 / 2 / 1; function afterRegex() {}
'''


def locked_project(base: Path, locked: dict[str, str]) -> Path:
    """``base/project``: a project root (``.git``) whose package-lock.json (v3) locks ``locked``
    (name → version) as direct dependencies; its path."""
    project = base / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    packages: dict[str, dict] = {"": {"name": "app", "dependencies": dict(locked)}}
    packages.update({f"node_modules/{name}": {"version": version} for name, version in locked.items()})
    (project / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": packages}))
    return project
