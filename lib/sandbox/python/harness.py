# The trusted half of a Python sandbox process: the policy check (Python's own ast), and the call of a tool or a
# snippet in a fresh namespace with curated builtins and per-call views of the allowed modules. The process around
# it (worker.mjs, bubblewrap) is the boundary that holds when this half is bypassed; this half makes the obvious
# escapes fail early, with a line and a column, and keeps one call's changes from the next.
import ast
import builtins
import csv
import gc
import json
import math
import os
import re
import sys
import types
import unicodedata

POLICY = {}
_VIEW_SOURCES = {}
_SAFE_BUILTINS = {}
# tools.call's channel to the host (worker.mjs' device): a file descriptor, never a JavaScript object.
_TOOLS_FD = -1
# The fingerprint of a pristine interpreter, in a list that configure() fills: the harness's own globals are watched,
# so this name must keep its object.
_BASELINE = []


def configure(policy_json, tools_device):
    """Set the policy (lib/sandbox/policy.ts' pythonPolicy), open tools.call's channel and import the allowed modules
    once, before any call. The device's name goes once open: the descriptor is the only way to it."""
    global POLICY, _TOOLS_FD
    _TOOLS_FD = os.open(tools_device, os.O_RDWR)
    os.unlink(tools_device)
    POLICY = json.loads(policy_json)
    POLICY["banned_names"] = frozenset(POLICY["bannedNames"])
    POLICY["banned_attributes"] = frozenset(POLICY["bannedAttributes"])
    POLICY["allowed"] = frozenset(POLICY["allowedModules"])
    POLICY["hidden"] = {name: frozenset(names) for name, names in POLICY["hiddenMembers"].items()}
    for name in sorted(POLICY["allowed"]):
        __import__(name)
    for name in POLICY["preload"]:
        __import__(name)
    for name in POLICY["allowed"]:
        module = sys.modules[name]
        hidden = POLICY["hidden"].get(name, frozenset())
        _VIEW_SOURCES[name] = {
            key: value
            for key, value in vars(module).items()
            if not key.startswith("_") and key not in hidden and not isinstance(value, types.ModuleType)
        }
    for key, value in vars(builtins).items():
        if key in POLICY["banned_names"] or (key.startswith("_") and key != "__build_class__"):
            continue
        _SAFE_BUILTINS[key] = value
    _close_evaluators()
    # A first call compiles much of the interpreter (WebAssembly compiles lazily) and runs the allowed modules'
    # lazy set-up (Counter.most_common imports heapq into collections; base64 builds its tables): both before the
    # baseline, so that the first real call is fast and does not look like a change.
    call("tool", _WARM_UP, '{"text": "warm up warm"}', 1000, 1000, False)
    _watch()
    _settle()
    _BASELINE[:] = [fingerprint()]


def _close_evaluators():
    """What would run code or add hooks past the check, closed before any call.

    typing makes a ForwardRef of any string (typing.List["..."], TypeVar(bound="...")) and ForwardRef.evaluate()
    evals it with the real builtins; functools.singledispatch evaluates string annotations the same way. Here a
    string annotation stays a string. An audit hook can never be removed and would run in every later call, whoever
    makes it: this hook refuses any further one.
    """
    annotationlib = sys.modules["annotationlib"]

    def unevaluated(self, *, format=annotationlib.Format.VALUE, **ignored):
        if format == annotationlib.Format.FORWARDREF:
            return self
        if format == annotationlib.Format.STRING:
            return self.__forward_arg__
        raise NameError(f"String annotations are not evaluated in a tool ({self.__forward_arg__!r}).")

    annotationlib.ForwardRef.evaluate = unevaluated
    sys.addaudithook(_refuse_audit_hooks)


def _refuse_audit_hooks(event, args):
    if event == "sys.addaudithook":
        raise RuntimeError("Audit hooks cannot be added in a tool.")


_WARM_UP = """
import base64, collections, json, re

def run(inputs):
    words = re.findall(r"[a-z]+", inputs["text"])
    print(len(words))
    encoded = [base64.a85encode(b"x"), base64.b85encode(b"x"), base64.b32encode(b"x"), base64.b32hexencode(b"x")]
    return json.loads(json.dumps(collections.Counter(words).most_common(2))), len(encoded)
"""


# ---------------------------------------------------------------------------------------------------------------
# The check


class _Checker(ast.NodeVisitor):
    def __init__(self):
        self.violations = []
        # The ids of tools.call's name literals, which the `__` rule spares: an MCP tool's name has one (server__tool).
        # Only when nothing else names `tools`, so that the literal can reach nothing but the host's channel.
        self.tools_names = frozenset()

    def report(self, node, message):
        if len(self.violations) < POLICY["maxViolations"]:
            self.violations.append(
                {"message": message, "line": getattr(node, "lineno", 1), "column": getattr(node, "col_offset", 0) + 1}
            )

    def name_rule(self, node, name, what):
        if name is None:
            return
        # A lone `_` is the usual throwaway name; only names that reach internals (_x, __x__) are refused.
        if name.startswith("_") and name != "_":
            self.report(node, f"{what} starting with `_` are not allowed (`{name}`): they reach Python's internals.")
        elif name in POLICY["banned_names"]:
            self.report(node, f"`{name}` is not allowed: tools cannot reflect on objects, run code or reach files.")

    def visit_Name(self, node):
        self.name_rule(node, node.id, "Names")

    def visit_Attribute(self, node):
        if node.attr.startswith("_"):
            self.report(node, f"Attributes starting with `_` are not allowed (`.{node.attr}`).")
        elif node.attr in POLICY["banned_attributes"]:
            self.report(node, f"Attribute `.{node.attr}` is not allowed: it reaches frames, code or the interpreter.")
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.module_rule(node, alias.name)
            self.name_rule(node, alias.asname, "Names")

    def visit_ImportFrom(self, node):
        if node.level:
            self.report(node, "Relative imports are not allowed.")
            return
        self.module_rule(node, node.module or "")
        for alias in node.names:
            if alias.name != "*":
                self.name_rule(node, alias.name, "Names")
                full = f"{node.module}.{alias.name}"
                if full not in POLICY["allowed"] and alias.name in POLICY["hidden"].get(node.module, ()):
                    self.report(node, f"`{full}` is not allowed.")
            self.name_rule(node, alias.asname, "Names")

    def module_rule(self, node, name):
        if name not in POLICY["allowed"]:
            allowed = ", ".join(sorted(POLICY["allowedModules"]))
            self.report(node, f"Importing `{name}` is not allowed. Tools may import: {allowed}.")

    def visit_FunctionDef(self, node):
        self.name_rule(node, node.name, "Names")
        self.arguments_rule(node.args)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self.arguments_rule(node.args)
        self.generic_visit(node)

    def arguments_rule(self, args):
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self.name_rule(arg, arg.arg, "Names")

    def visit_ClassDef(self, node):
        self.name_rule(node, node.name, "Names")
        for keyword in node.keywords:
            self.report(keyword, "Class keywords (metaclass=...) are not allowed.")
        self.generic_visit(node)

    def visit_keyword(self, node):
        self.name_rule(node, node.arg, "Keyword arguments")
        self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            self.name_rule(node, name, "Names")

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node):
        self.name_rule(node, node.name, "Names")
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        self.name_rule(node, node.name, "Names")
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        self.name_rule(node, node.name, "Names")

    def visit_MatchMapping(self, node):
        self.name_rule(node, node.rest, "Names")
        self.generic_visit(node)

    def visit_MatchClass(self, node):
        # `case C(attr=p)` reads C's attributes as `.attr` would. `case C(p)` reads the attributes C's __match_args__
        # names, which a class made at run time (type() with a built dict) can set to any name: positional patterns
        # only for the built-in types that match themselves.
        for attribute in node.kwd_attrs:
            if attribute.startswith("_") or attribute in POLICY["banned_attributes"]:
                self.report(node, f"Matching on attribute `{attribute}` is not allowed.")
        if node.patterns and not (isinstance(node.cls, ast.Name) and node.cls.id in POLICY["selfMatchingClasses"]):
            self.report(
                node,
                "Positional class patterns are allowed only for built-in types (`case int(n)`): "
                "name the attributes instead (`case Point(x=0, y=y)`).",
            )
        self.generic_visit(node)

    def visit_Constant(self, node):
        if id(node) in self.tools_names:
            return
        if isinstance(node.value, str) and POLICY["dunderString"] in node.value:
            self.report(node, "Strings naming internals (`__...`) are not allowed.")
        elif isinstance(node.value, str) and _reads_private_field(node.value):
            self.report(node, "Format fields that read attributes starting with `_` are not allowed.")


def _reads_private_field(text):
    """'{0._x}' and '{0[_x]}'-style fields: str.format reads attributes the check cannot otherwise see."""
    start = text.find("{")
    while start != -1:
        end = text.find("}", start)
        if end == -1:
            return False
        field = text[start + 1 : end]
        if "._" in field or "[_" in field:
            return True
        start = text.find("{", end)
    return False


_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,256}")


def _tools_uses(tree):
    """The direct calls `tools.call(...)` in the tree, and every other place that names or binds `tools` (an alias,
    an argument, a shadowing definition) but `tools.ToolCallError`: those would hide which tools the code calls."""
    calls, direct = [], set()
    for node in ast.walk(tree):
        # Catching its error (`except tools.ToolCallError`) reaches no tool.
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "ToolCallError"
            and isinstance(node.value, ast.Name)
            and node.value.id == "tools"
            and isinstance(node.ctx, ast.Load)
        ):
            direct.add(id(node.value))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "call"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "tools"
            and isinstance(node.func.value.ctx, ast.Load)
        ):
            calls.append(node)
            direct.add(id(node.func.value))
    strays = [node for node in ast.walk(tree) if "tools" in _names_in(node) and id(node) not in direct]
    return calls, strays


def _names_in(node):
    """The names a node reads or binds itself (not its children's)."""
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0],)
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return (node.name,)
    if isinstance(node, ast.MatchMapping):
        return (node.rest,)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return tuple(node.names)
    return ()


def _called_name(call):
    """The tool a tools.call names: its first argument when that is a string literal, else None."""
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first
    return None


def _uses_violations(calls, strays, uses):
    """With `uses` (the tools a tool says it calls): each tools.call names one of them, as a literal; `tools` is used
    no other way."""
    found = []

    def report(node, message):
        found.append({"message": message, "line": node.lineno, "column": node.col_offset + 1})

    for call in calls:
        name = _called_name(call)
        if name is None:
            report(
                call.args[0] if call.args else call,
                "tools.call needs the tool's name as a string literal, listed in uses: "
                'tools.call("word_count", {"text": text}).',
            )
        elif name.value not in uses:
            quoted = json.dumps(name.value)
            report(name, f"tools.call({quoted}) names a tool not in uses: add {quoted} to uses.")
    for node in strays:
        report(
            node,
            '`tools` may only be used as tools.call("name", input), called directly: aliasing it, passing it '
            "around or naming something else `tools` hides which tools the code calls.",
        )
    return found


def check(code, require_entry_point, skip_rules=False, uses_json=None):
    """The policy's verdict: {"ok": true, "entry": name|None} or {"ok": false, "violations": [...]}. With
    `skip_rules` (the test-only switch), only that the code parses and has its entry point. With `uses_json` (a JSON
    list of names), every tools.call must name one of them."""
    uses = None if uses_json is None else frozenset(json.loads(uses_json))
    return _checked(code, require_entry_point, skip_rules, uses)[0]


def _checked(code, require_entry_point, skip_rules, uses=None):
    """The verdict, and the parsed module when it passed: a call runs the tree it checked."""
    try:
        tree = ast.parse(code, "<tool>")
    except SyntaxError as error:
        message = f"Python does not parse: {error.msg}."
        violation = {"message": message, "line": error.lineno or 1, "column": error.offset or 1}
        return {"ok": False, "violations": [violation]}, None
    except (ValueError, MemoryError, RecursionError) as error:
        violation = {"message": f"Python does not parse: {error}.", "line": 1, "column": 1}
        return {"ok": False, "violations": [violation]}, None
    checker = _Checker()
    try:
        if not skip_rules:
            calls, strays = _tools_uses(tree)
            if not strays:
                names = (_called_name(call) for call in calls)
                checker.tools_names = {id(name) for name in names if name and _TOOL_NAME.fullmatch(name.value)}
            checker.visit(tree)
            if uses is not None:
                for violation in _uses_violations(calls, strays, uses):
                    if len(checker.violations) < POLICY["maxViolations"]:
                        checker.violations.append(violation)
                checker.violations.sort(key=lambda violation: (violation["line"], violation["column"]))
    except RecursionError:
        checker.report(tree, "The code is nested too deeply to check.")
    if checker.violations:
        return {"ok": False, "violations": checker.violations}, None
    entry = _entry_point(tree)
    if require_entry_point and not isinstance(entry, str):
        return {"ok": False, "violations": [entry]}, None
    return {"ok": True, "entry": entry if isinstance(entry, str) else None}, tree


def check_json(code, require_entry_point, skip_rules, uses_json=None):
    return json.dumps(check(code, require_entry_point, skip_rules, uses_json))


def _entry_point(tree):
    """`run`, or a module's only top-level function (SEAT's shape); else a violation saying what is needed."""
    functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    chosen = next((node for node in functions if node.name == POLICY["entryPoint"]), None)
    if chosen is None and len(functions) == 1:
        chosen = functions[0]
    if chosen is None:
        names = ", ".join(node.name for node in functions)
        found = f" It defines {names}, but none is named run." if functions else ""
        return {
            "message": "A Python tool needs an entry point: a top-level `def run(inputs):` that returns a JSON "
            f"value (dict, list, str, int, float, bool or None).{found}",
            "line": 1,
            "column": 1,
        }
    if isinstance(chosen, ast.AsyncFunctionDef):
        return {
            "message": f"`async def {chosen.name}` cannot be the entry point: write a plain `def`.",
            "line": chosen.lineno,
            "column": chosen.col_offset + 1,
        }
    return chosen.name


# ---------------------------------------------------------------------------------------------------------------
# The call


class _Printed:
    """sys.stdout for one call: lines up to the console limit, then a flag."""

    def __init__(self, limit):
        self.limit = limit
        self.size = 0
        self.parts = []
        self.truncated = False

    def write(self, text):
        text = str(text)
        if self.size + len(text) > self.limit:
            self.truncated = True
            text = text[: max(0, self.limit - self.size)]
        self.size += len(text)
        self.parts.append(text)
        return len(text)

    def flush(self):
        pass

    def lines(self):
        text = "".join(self.parts)
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n") if text else []


def _module_view(name, random_instance):
    """A fresh module object per call: assigning to it changes only this call's copy."""
    view = types.ModuleType(name)
    view.__dict__.update(_VIEW_SOURCES[name])
    if name == "random":
        # The module's functions are methods of one hidden Random; each call gets its own, seeded afresh.
        for key, value in _VIEW_SOURCES[name].items():
            if isinstance(value, types.MethodType) and isinstance(value.__self__, sys.modules["random"].Random):
                setattr(view, key, getattr(random_instance, key))
    for key in POLICY["allowed"]:
        parent, _, child = key.rpartition(".")
        if parent == name:
            setattr(view, child, _module_view(key, random_instance))
    return view


def _namespace():
    views = {}
    random_instance = sys.modules["random"].Random()

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        # C code imports through the builtins of the frame it runs in (datetime.strptime imports _strptime).
        if name in POLICY["preload"] and not level:
            return sys.modules[name]
        if level or name not in POLICY["allowed"]:
            raise ImportError(f"Importing `{name}` is not allowed in a tool.")
        top = name.split(".")[0] if not fromlist else name
        if top not in views:
            views[top] = _module_view(top, random_instance)
        return views[top]

    own_builtins = dict(_SAFE_BUILTINS)
    own_builtins["__import__"] = guarded_import
    own_builtins["tools"] = _TOOLS
    return {"__builtins__": own_builtins, "__name__": "tool"}


class NotJson(Exception):
    pass


class ToolCallError(Exception):
    """A tools.call whose tool failed or was refused: str(error) is the called tool's error."""


_OMITTED = object()


class _Tools:
    """What tool code sees as `tools`: tools.call(name, input) waits for another tool's output and returns it as
    Python values, or raises tools.ToolCallError with its error. The host decides whether the call may run."""

    __slots__ = ()
    ToolCallError = ToolCallError

    def call(self, name, input=_OMITTED):
        return _call_tool(name, {} if input is _OMITTED else input)


_TOOLS = _Tools()


def _call_tool(name, input):
    if not isinstance(name, str):
        raise TypeError(f"tools.call's first argument is the tool's name, a str (got {type(name).__name__}).")
    try:
        request = json.dumps({"name": name, "input": _to_json(input, "input")}, ensure_ascii=False)
    except NotJson as error:
        raise TypeError(f"tools.call({name!r}, ...): the input is not JSON: {error}") from None
    # One write sends the request; the reply is ready to read when it returns, and ends where a read gives nothing.
    os.write(_TOOLS_FD, request.encode())
    chunks = []
    while chunk := os.read(_TOOLS_FD, 1 << 16):
        chunks.append(chunk)
    reply = json.loads(b"".join(chunks))
    if not reply.get("ok"):
        raise ToolCallError(str(reply.get("error")))
    return reply.get("output")


def _to_json(value, path="output", depth=0):
    """JSON values pass; tuples, sets and dates convert as documented; anything else names where it is."""
    if depth > 100:
        raise NotJson(f"{path} is nested more than 100 levels deep.")
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise NotJson(f"{path} is {value}, which JSON cannot carry: return None or a string instead.")
        return value
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise NotJson(f"{path} has a key of type {type(key).__name__}: JSON object keys are strings.")
            text = key if isinstance(key, str) else json.dumps(key)
            result[text] = _to_json(item, f"{path}[{text!r}]", depth + 1)
        return result
    if isinstance(value, (list, tuple)):
        return [_to_json(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        items = [_to_json(item, f"{path} (a set)", depth + 1) for item in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    datetime = sys.modules["datetime"]
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        raise NotJson(f"{path} is bytes, which JSON cannot carry: decode it (b.decode()) or return a list of numbers.")
    kind = type(value).__name__
    if kind in ("Decimal", "Fraction"):
        raise NotJson(f"{path} is a {kind}: convert it with str() or float() before returning it.")
    raise NotJson(f"{path} is a {kind}: return JSON values (dict, list, str, int, float, bool, None).")


def _describe(error):
    # The pool words the limits (sandboxError), as it does JavaScript's.
    if isinstance(error, MemoryError):
        return {"kind": "memory", "message": ""}
    if isinstance(error, RecursionError):
        return {"kind": "stack", "message": ""}
    text = f"{type(error).__name__}: {error}"
    tb = error.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<tool>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return {"kind": "error", "message": (f"{text} (line {line})" if line else text)[:2000]}


def call(mode, code, input_json, output_chars, console_chars, skip_policy):
    """Check, then run: a tool's entry point with the input, a compile, or a snippet's last value. Returns JSON text."""
    verdict, tree = _checked(code, mode != "snippet", skip_policy)
    if not verdict["ok"]:
        return json.dumps({"ok": False, "violations": verdict["violations"]})
    printed = _Printed(console_chars)
    namespace = _namespace()
    saved_stdout, saved_stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = printed
    try:
        if mode == "snippet":
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, "<tool>", "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), "<tool>", "eval"), namespace) if last else None
        else:
            exec(compile(tree, "<tool>", "exec"), namespace)
            entry = verdict["entry"]
            function = namespace.get(entry) if entry else None
            if not callable(function):
                raise NameError("The code defines no entry point `run`.")
            if mode == "compile":
                return json.dumps({"ok": True, "output": None, "logs": printed.lines(), "truncated": printed.truncated})
            inputs = json.loads(input_json)
            value = function(**inputs) if _takes_keywords(function, entry, inputs) else function(inputs)
        try:
            text = json.dumps(_to_json(value), ensure_ascii=False)
        except NotJson as error:
            raise TypeError(f"The result is not JSON: {error}") from None
        # Python's own str() beside the JSON, which cannot tell 212.0 from 212 (SEAT's scripts read this text).
        result = {"ok": True, "logs": printed.lines(), "truncated": printed.truncated, "text": str(value)[:output_chars]}
        if len(text) > output_chars:
            result.update(output=text[:output_chars], outputTruncated=True)
        else:
            result["json"] = text
        return json.dumps(result)
    except BaseException as error:  # SystemExit and KeyboardInterrupt included: the call ends, the process does not.
        return json.dumps({"ok": False, "error": _describe(error), "logs": printed.lines(), "truncated": printed.truncated})
    finally:
        sys.stdout, sys.stderr = saved_stdout, saved_stderr


def _takes_keywords(function, entry, inputs):
    """`run(inputs)` takes the input object; a SEAT-style `f(celsius)` takes the input's fields as keyword arguments
    when they are its parameters (or it takes **kwargs), and the whole object when it has one parameter else."""
    if entry == POLICY["entryPoint"] or not isinstance(inputs, dict):
        return False
    code = function.__code__
    names = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    takes_any = bool(code.co_flags & 0x08)
    return set(inputs) <= names or takes_any or code.co_argcount != 1


# ---------------------------------------------------------------------------------------------------------------
# Nothing crosses calls


_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: built-in and C types refuse new attributes by themselves.
_WATCHED = []


def _watch():
    """The namespaces a call could change and the next would see: every module's, the harness's own (its globals, the
    curated builtins and the module views' sources every call copies, the policy), and those of the mutable classes
    and the functions they hold (a view shields a module's own names, not the objects they name)."""
    seen, classes = set(), set()
    namespaces = [vars(sys.modules[name]) for name in sorted(POLICY["allowed"]) + POLICY["preload"]]
    namespaces += [globals(), _SAFE_BUILTINS, POLICY, POLICY["hidden"], _VIEW_SOURCES, *_VIEW_SOURCES.values()]
    for namespace in namespaces:
        _WATCHED.append(namespace)
        for value in list(namespace.values()):
            if id(value) in seen:
                continue
            seen.add(id(value))
            if isinstance(value, type):
                for klass in value.__mro__:
                    if not klass.__flags__ & _IMMUTABLE_TYPE and id(klass) not in classes:
                        classes.add(id(klass))
                        _WATCHED.append(vars(klass))
            elif isinstance(value, types.FunctionType):
                _WATCHED.append(value.__dict__)
                _WATCHED.append(value)


def fingerprint():
    """Keys and object identities of everything watched, plus the interpreter-wide settings: equal or not."""
    state = [
        tuple(sys.modules),
        tuple(map(id, sys.modules.values())),
        tuple(map(id, vars(builtins).values())),
        sys.getrecursionlimit(),
        id(sys.gettrace()),
        id(sys.getprofile()),
        tuple(map(id, sys.meta_path)),
        tuple(sys.path),
        sys.modules["abc"].get_cache_token(),
        repr(sys.modules["decimal"].DefaultContext),
        # Interpreter-wide settings and hooks that would act in later calls.
        sys.get_int_max_str_digits(),
        sys.getswitchinterval(),
        tuple(map(id, (sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__))),
        tuple(map(id, (sys.excepthook, sys.unraisablehook, sys.displayhook, sys.breakpointhook))),
        tuple(map(id, sys.path_hooks)),
        tuple(sys.monitoring.get_tool(tool) for tool in range(6)),
        tuple(map(id, gc.callbacks)),
        gc.isenabled(),
        gc.get_threshold(),
        tuple(map(id, sys.modules["warnings"].filters)),
        tuple((id(key), id(value)) for key, value in sys.modules["copyreg"].dispatch_table.items()),
        # Module-wide state of allowed modules, outside any namespace: csv's registry and limit, calendar's week.
        tuple((name, id(csv.get_dialect(name))) for name in csv.list_dialects()),
        csv.field_size_limit(),
        sys.modules["calendar"].firstweekday(),
        # The interpreter's file descriptors (Emscripten's): a call that closed or replaced tools.call's channel, or
        # left a file open, would leave them to the next call.
        _descriptors(),
    ]
    for watched in _WATCHED:
        if isinstance(watched, types.FunctionType):
            state.append((id(watched.__code__), id(watched.__defaults__), id(watched.__kwdefaults__)))
        else:
            state.append(tuple(watched))
            state.append(tuple(map(id, watched.values())))
            # Public containers of a module (hashlib.algorithms_available) can hold a call's objects too.
            for value in watched.values():
                if type(value) in (list, set, dict) and value is not _BASELINE:
                    state.append(tuple(map(id, value)))
    return state


def _descriptors():
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            status = os.fstat(int(name))
        except OSError:
            continue  # the listing's own, closed by now
        found.append((name, status.st_rdev, status.st_ino))
    return tuple(found)


def _settle():
    """Empty the caches a call's objects can sit in (a str subclass as a pattern or a format, a class in
    typing.List[...]) and collect the garbage: a finalizer or a hook a call hid there runs now, where the comparison
    sees what it does, and not inside a later caller's call."""
    sys.modules["decimal"].setcontext(sys.modules["decimal"].Context())
    sys.modules["re"].purge()
    for clear in sys.modules["typing"]._cleanups:
        clear()
    sys.modules["_strptime"]._regex_cache.clear()
    gc.collect()


def pristine():
    """True when the interpreter is as configure() left it; else the process must be replaced."""
    _settle()
    return fingerprint() == _BASELINE[0]
