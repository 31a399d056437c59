"""Where code of a language lives: the surroundings a pattern's instance is placed in for the self-match.

A pattern is usually written as a fragment (a call, a field, a method); ast-grep reads the fragment alone,
which may give another node than the same text gets inside a real file (Go's `fmt.Println(x)` alone is a type
conversion, in a function body a call). Each context is a small complete program with one hole, `{}`; the
hole's lines are indented by `indent`. The same template, with the pattern in the hole, is the `context` of
a repaired pattern object. General per grammar: no context knows any API.
"""

from __future__ import annotations


class Context:
    __slots__ = ("indent", "name", "template")

    def __init__(self, name: str, template: str, indent: str = "") -> None:
        self.name = name  # how a message names it: "a function body"
        self.template = template  # "{}" marks the hole
        self.indent = indent

    def _body(self, code: str) -> str:
        lines = code.split("\n")
        return "\n".join([lines[0]] + [self.indent + ln if ln else ln for ln in lines[1:]])

    def fill(self, code: str) -> str:
        return self.template.replace("{}", self.indent + self._body(code), 1)

    def span(self, code: str) -> tuple[int, int]:
        """Byte offsets of the hole's code in `fill(code)`."""
        start = len((self.template.split("{}", 1)[0] + self.indent).encode("utf-8"))
        return start, start + len(self._body(code).encode("utf-8"))


def _c(name: str, template: str, indent: str = "") -> Context:
    return Context(name, template, indent)


TOP = _c("a whole file", "{}\n")

_PY = [
    TOP,
    _c("a function body", "def _f():\n{}\n", "    "),
    _c("a class body", "class _C:\n{}\n", "    "),
    _c("an expression", "_x = {}\n"),
    _c("a call argument", "_f({})\n"),
    _c("a decorator", "{}\ndef _f():\n    pass\n"),
    _c("a type annotation", "_v: {}\n"),
    _c("a parameter list", "def _f({}):\n    pass\n"),
]
_JS = [
    TOP,
    _c("a function body", "function _f() {\n{}\n}\n"),
    _c("a class body", "class _C {\n{}\n}\n"),
    _c("an expression", "_x = ({});\n"),
    _c("an object literal", "_x = {\n{}\n};\n"),
    _c("a call argument", "_f({});\n"),
    _c("a parameter list", "function _f({}) {}\n"),
]
_TS_ONLY = [
    _c("a type annotation", "let _v: {};\n"),
    _c("an interface body", "interface _I {\n{}\n}\n"),
    _c("a decorated class member", "class _C {\n{}\n_m() {}\n}\n"),
]
_TS = _JS + _TS_ONLY
_TSX = _JS + _TS_ONLY
_GO = [
    TOP,
    _c("a function body", "func _() {\n{}\n}\n"),
    _c("an expression", "var _ = {}\n"),
    _c("a struct body", "type _ struct {\n{}\n}\n"),
    _c("an interface body", "type _ interface {\n{}\n}\n"),
    _c("a type position", "var _ {}\n"),
    _c("a call argument", "func _() {\n_f({})\n}\n"),
    _c("a parameter list", "func _({}) {}\n"),
]
_JAVA = [
    TOP,
    _c("a class body", "class _C {\n{}\n}\n"),
    _c("a method body", "class _C {\nvoid _m() {\n{}\n}\n}\n"),
    _c("a statement", "class _C {\nvoid _m() {\n{};\n}\n}\n"),
    _c("an expression", "class _C {\nvoid _m() {\n_x = {};\n}\n}\n"),
    _c("a call argument", "class _C {\nvoid _m() {\n_f({});\n}\n}\n"),
    _c("an annotated method", "class _C {\n{}\nvoid _m() {}\n}\n"),
    _c("a type position", "class _C {\n{} _f;\n}\n"),
    _c("a parameter list", "class _C {\nvoid _m({}) {}\n}\n"),
]
_CSHARP = [
    TOP,
    _c("a class body", "class _C {\n{}\n}\n"),
    _c("a method body", "class _C {\nvoid _M() {\n{}\n}\n}\n"),
    _c("a statement", "class _C {\nvoid _M() {\n{};\n}\n}\n"),
    _c("an expression", "class _C {\nvoid _M() {\n_x = {};\n}\n}\n"),
    _c("a call argument", "class _C {\nvoid _M() {\n_F({});\n}\n}\n"),
    _c("an attribute", "class _C {\n{}\nvoid _M() {}\n}\n"),
    _c("an attribute on a class", "{}\nclass _C {}\n"),
    _c("a type position", "class _C {\n{} _f;\n}\n"),
    _c("a parameter list", "class _C {\nvoid _M({}) {}\n}\n"),
]
_C = [
    TOP,
    _c("a function body", "void _f(void) {\n{}\n}\n"),
    _c("a statement", "void _f(void) {\n{};\n}\n"),
    _c("an expression", "void _f(void) {\n_x = {};\n}\n"),
    _c("a call argument", "void _f(void) {\n_g({});\n}\n"),
    _c("a struct body", "struct _s {\n{}\n};\n"),
    _c("a declaration", "{} _v;\n"),
    _c("a parameter list", "void _f({}) {}\n"),
]
_CPP = [*_C, _c("a class body", "class _C {\n{}\n};\n")]
_RUST = [
    TOP,
    _c("a function body", "fn _f() {\n{}\n}\n"),
    _c("a statement", "fn _f() {\n{};\n}\n"),
    _c("an expression", "fn _f() {\nlet _x = {};\n}\n"),
    _c("a call argument", "fn _f() {\n_g({});\n}\n"),
    _c("an impl body", "impl _S {\n{}\n}\n"),
    _c("a struct body", "struct _S {\n{}\n}\n"),
    _c("an attribute", "{}\nfn _f() {}\n"),
    _c("a type position", "fn _f() {\nlet _x: {};\n}\n"),
    _c("a match arm", "fn _f() {\nmatch _x {\n{}\n}\n}\n"),
    _c("a parameter list", "fn _f({}) {}\n"),
]
_KOTLIN = [
    TOP,
    _c("a function body", "fun _f() {\n{}\n}\n"),
    _c("a class body", "class _C {\n{}\n}\n"),
    _c("an expression", "val _x = {}\n"),
    _c("a call argument", "val _x = _f({})\n"),
]
_RUBY = [
    TOP,
    _c("a method body", "def _f\n{}\nend\n"),
    _c("a class body", "class C_\n{}\nend\n"),
    _c("an expression", "_x = {}\n"),
    _c("a call argument", "_f({})\n"),
]
_PHP = [
    _c("a whole file", "<?php\n{}\n"),
    _c("a function body", "<?php\nfunction _f() {\n{}\n}\n"),
    _c("a statement", "<?php\nfunction _f() {\n{};\n}\n"),
    _c("a class body", "<?php\nclass _C {\n{}\n}\n"),
    _c("an expression", "<?php\n$_x = {};\n"),
    _c("a call argument", "<?php\n_f({});\n"),
]
_SWIFT = [
    TOP,
    _c("a function body", "func _f() {\n{}\n}\n"),
    _c("a class body", "class _C {\n{}\n}\n"),
    _c("an expression", "let _x = {}\n"),
]
_SCALA = [
    TOP,
    _c("an object body", "object _O {\n{}\n}\n"),
    _c("a function body", "def _f = {\n{}\n}\n"),
    _c("an expression", "val _x = {}\n"),
]
_KOTLIN_LIKE = {"kotlin": _KOTLIN, "swift": _SWIFT, "scala": _SCALA}
_OTHERS = {
    "bash": [TOP, _c("a function body", "_f() {\n{}\n}\n"), _c("a command substitution", "_x=$({})\n")],
    "lua": [TOP, _c("a function body", "function _f()\n{}\nend\n"), _c("an expression", "local _x = {}\n")],
    "dart": [TOP, _c("a function body", "void _f() {\n{}\n}\n"), _c("a statement", "void _f() {\n{};\n}\n"),
             _c("a class body", "class _C {\n{}\n}\n"), _c("an expression", "var _x = {};\n")],
    "elixir": [TOP, _c("a function body", "defmodule M do\n  def f do\n{}\n  end\nend\n")],
}

CONTEXTS: dict[str, list[Context]] = {
    "python": _PY, "javascript": _JS, "typescript": _TS, "tsx": _TSX, "go": _GO, "java": _JAVA,
    "csharp": _CSHARP, "c": _C, "cpp": _CPP, "rust": _RUST, "ruby": _RUBY, "php": _PHP,
    **_KOTLIN_LIKE, **_OTHERS,
}


def contexts_for(language: str) -> list[Context]:
    """The curated contexts of a language; other grammars get only the whole-file context."""
    return CONTEXTS.get(language, [TOP])


def curated(language: str) -> bool:
    return language in CONTEXTS
