# Layer 1 of the Python sandbox: the policy's verdict on code, from Python's own ast, before the code is stored and
# again before each call. It makes the obvious escapes fail early with a line and a column a model can act on; the
# jail around the process (jail.py, bubblewrap) is what holds when it is bypassed, as through a library's getattr.
import ast
import json
import re

POLICY = {}


def configure(policy):
    """lib/sandbox/policy.ts' pythonPolicy, with the lists as sets."""
    POLICY.update(policy)
    POLICY["banned_names"] = frozenset(policy["bannedNames"])
    POLICY["banned_attributes"] = frozenset(policy["bannedAttributes"])
    POLICY["hidden"] = frozenset(policy["hiddenMembers"])
    POLICY["reached_modules"] = frozenset(policy["reachedModules"])
    POLICY["allowed"] = frozenset(policy["allowedModules"])
    POLICY["self_matching"] = frozenset(policy["selfMatchingClasses"])


def allowed_module(name):
    """A module of the allowlist, or of a package on it (numpy.linalg, matplotlib.pyplot, urllib.parse)."""
    return name.split(".")[0] in POLICY["allowed"]


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

    def name_rule(self, node, name, what, binds=True):
        if name is None:
            return
        # A lone `_` is the usual throwaway name; only names that reach internals (_x, __x__) are refused.
        if name.startswith("_") and name != "_":
            self.report(node, f"{what} starting with `_` are not allowed (`{name}`): they reach Python's internals.")
        elif name in POLICY["banned_names"]:
            self.report(node, f"`{name}` is not allowed: tools cannot reflect on objects, run code or reach files.")
        elif binds and name in POLICY["self_matching"]:
            # `case int(x)` trusts that int is the built-in type: another class there reads what it names.
            self.report(node, f"`{name}` is a built-in type and cannot be rebound: choose another name.")

    def visit_Name(self, node):
        self.name_rule(node, node.id, "Names", binds=not isinstance(node.ctx, ast.Load))

    def visit_Attribute(self, node):
        literal = isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        problem = _attribute_problem(node.attr, on_literal=literal)
        if problem:
            self.report(node, problem)
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.module_rule(node, alias.name)
            self.name_rule(node, alias.asname or alias.name.split(".")[0], "Names")

    def visit_ImportFrom(self, node):
        if node.level:
            self.report(node, "Relative imports are not allowed.")
            return
        self.module_rule(node, node.module or "")
        for alias in node.names:
            if alias.name != "*":
                self.name_rule(node, alias.name, "Names", binds=alias.asname is None)
                if alias.name in POLICY["hidden"]:
                    self.report(node, f"`{node.module}.{alias.name}` is not allowed.")
            self.name_rule(node, alias.asname, "Names")

    def module_rule(self, node, name):
        if not allowed_module(name):
            allowed = ", ".join(POLICY["allowedModules"])
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
        self.name_rule(node, node.arg, "Keyword arguments", binds=False)
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
            problem = _attribute_problem(attribute)
            if problem:
                self.report(node, f"Matching on attribute `{attribute}` is not allowed: {problem}")
        if node.patterns and not (isinstance(node.cls, ast.Name) and node.cls.id in POLICY["self_matching"]):
            self.report(
                node,
                "Positional class patterns are allowed only for built-in types (`case int(n)`): "
                "name the attributes instead (`case Point(x=0, y=y)`).",
            )
        self.generic_visit(node)

    def visit_Constant(self, node):
        if id(node) in self.tools_names:
            return
        # Bytes too: b"__class__".decode() is the same name.
        if isinstance(node.value, bytes) and POLICY["dunderString"].encode() in node.value:
            self.report(node, "Bytes naming internals (`__...`) are not allowed.")
        elif isinstance(node.value, str) and POLICY["dunderString"] in node.value:
            self.report(node, "Strings naming internals (`__...`) are not allowed.")
        elif isinstance(node.value, str) and _reads_private_field(node.value):
            self.report(node, "Format fields that read internals (`{0._x}`, `{0.gi_frame}`) are not allowed.")


def _attribute_problem(name, on_literal=False):
    """Why reading this attribute is refused, read as `.name` or by a class pattern, or None."""
    if name.startswith("_"):
        return f"Attributes starting with `_` are not allowed (`.{name}`)."
    if name in POLICY["banned_attributes"]:
        return f"Attribute `.{name}` is not allowed: it reaches frames, code or the interpreter."
    if name in POLICY["hidden"]:
        return f"`.{name}` is not allowed: it reads attributes by name or evaluates strings."
    if name in POLICY["reached_modules"]:
        return f"`.{name}` is not allowed: it is a module tools may not use, reached through another."
    if name == "format" and not on_literal:
        # A format string made at run time reads any attribute its fields name; a literal's fields are checked.
        return "`.format` is allowed only on a string literal (`'{} km'.format(n)`); or use an f-string."
    return None


def _reads_private_field(text):
    """'{0._x}', '{0[_x]}' and '{0.gi_frame}'-style fields: str.format reads the attributes a field names, which the
    check cannot otherwise see."""
    start = text.find("{")
    while start != -1:
        end = text.find("}", start)
        if end == -1:
            return False
        field = re.split(r"[!:]", text[start + 1 : end], maxsplit=1)[0]
        for part in re.split(r"[.\[\]]", field)[1:]:
            if _attribute_problem(part, on_literal=True):
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


def check(code, require_entry_point, skip_rules=False, uses=None):
    """The policy's verdict: {"ok": true, "entry": name|None} or {"ok": false, "violations": [...]}. With
    `skip_rules` (the test-only switch), only that the code parses and has its entry point. With `uses` (a list of
    names), every tools.call must name one of them."""
    return checked(code, require_entry_point, skip_rules, None if uses is None else frozenset(uses))[0]


def checked(code, require_entry_point, skip_rules, uses=None):
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
