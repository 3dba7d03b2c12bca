# The trusted half of a call's child (zygote.py forks it, jail.py confines it): it asks the host for its job over
# the call's channel, checks the code again (policy.py), runs it with curated builtins, and answers with the result,
# what the code printed and the figures it drew. The process ends with the call, so what the code does to modules,
# to the interpreter or to memory ends with it too.
import ast
import builtins
import io
import math
import shutil
import socket
import sys

# Held here, not looked up on their modules: a call that replaces json.dumps changes its own code's, not ours.
from base64 import b64encode as _b64encode
from json import dumps as _dumps, loads as _loads
from struct import pack as _pack, unpack as _unpack

import egress
import policy

_SAFE_BUILTINS = {}
# The call's channel to the host, in the child: its job, tools.call, the network, its answer.
_HOST = None
# Figures plt.show() took during the call, as base64 PNG.
_SHOWN = []


def configure(settings_json):
    """In the zygote, before any child: the policy, the allowed modules imported with what they use (so a call
    starts with them loaded), matplotlib headless, the network through the host, and a first use of the libraries
    by code of ours, so that their lazy set-up is done once here rather than in every call."""
    settings = _loads(settings_json)
    policy.configure(settings["policy"])
    import matplotlib

    matplotlib.use("Agg")
    for name in sorted(policy.POLICY["allowed"]) + settings["policy"]["preload"]:
        __import__(name)
    sys.modules["matplotlib.pyplot"].show = _show
    egress.install(lambda message: _HOST.request(message), settings["fetchRequestBytes"])
    for key, value in vars(builtins).items():
        banned = key in policy.POLICY["banned_names"]
        if banned or (key.startswith("_") and key != "__build_class__"):
            continue
        _SAFE_BUILTINS[key] = value
    exec(compile(_WARM_UP, "<warm-up>", "exec"), {})


_WARM_UP = """
import base64, collections, io, json, re
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
frame.to_markdown(), frame.to_csv(), frame.describe(), frame.to_dict("records"), pd.read_csv(io.StringIO("a,b\\n1,2"))
np.linspace(0, 1, 5).mean(), json.dumps(collections.Counter(re.findall("[a-z]+", "a b a")).most_common(1))
[base64.a85encode(b"x"), base64.b85encode(b"x"), base64.b32encode(b"x"), base64.b32hexencode(b"x")]
figure = plt.figure()
plt.plot([1, 2], [3, 4])
figure.savefig(io.BytesIO(), format="png")
plt.close("all")
"""


_CALL_WARM_UP = {
    "mode": "tool",
    "code": """import json, re
import pandas as pd

def run(inputs):
    frame = pd.DataFrame(inputs["rows"])
    words = re.findall("[a-z]+", json.dumps(inputs))
    return {"words": len(words), "table": frame.to_markdown(), "stats": frame.describe().to_dict()}
""",
    "input": {"rows": [{"a": 1, "b": 2.5}, {"a": 3, "b": 4.5}]},
    "limits": {"outputChars": 100_000, "consoleChars": 1000, "imageChars": 0},
}


class Channel:
    """Frames both ways: a 4-byte length, then JSON. The child asks and waits for each answer."""

    def __init__(self, connection):
        self.connection = connection

    def send(self, message):
        data = _dumps(message, ensure_ascii=False).encode()
        self.connection.sendall(_pack(">I", len(data)) + data)

    def receive(self):
        (size,) = _unpack(">I", self._exactly(4))
        return _loads(self._exactly(size))

    def request(self, message):
        self.send(message)
        return self.receive()

    def _exactly(self, size):
        data = bytearray()
        while len(data) < size:
            chunk = self.connection.recv(size - len(data))
            if not chunk:
                raise ConnectionError("The host closed the channel.")
            data += chunk
        return bytes(data)


def serve(connection: socket.socket, token):
    """The child's one call: its job for the token, the answer, then the process ends (zygote.py)."""
    global _HOST
    _HOST = Channel(connection)
    # A child starts from the zygote's generator state: each call draws its own numbers (random reseeds at fork).
    sys.modules["numpy"].random.seed()
    # While it waits as the spare, off any caller's clock: the pages a call touches are copied from the zygote's now.
    call(_CALL_WARM_UP)
    job = _HOST.request({"hello": token})
    try:
        if job.get("inbox"):
            # The conversation's files, as the host put them for this call alone; their times kept, so that the
            # host tells what the code changed (lib/sandbox/python/workspace-copy.ts).
            shutil.copytree("/mnt/inbox", "/mnt/data", dirs_exist_ok=True)
        if job["mode"] == "check":
            answer = policy.check(job["code"], job.get("requireEntryPoint", True), job.get("skipPolicy", False), job.get("uses"))
        else:
            answer = call(job)
    except Exception as error:  # the harness's own failure, not the code's: said as a crash
        answer = {"ok": False, "error": {"kind": "crash", "message": f"The Python sandbox failed: {error!r}"[:2000]}}
    _HOST.send({"result": answer})


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


class NotJson(Exception):
    pass


class ToolCallError(Exception):
    """A tools.call whose tool failed or was refused: str(error) is the called tool's error."""


_OMITTED = object()


class _Secrets:
    """What tool code sees as `secrets`: secrets["WEATHER_KEY"] is a placeholder, never the value. The host puts the
    value in where a request to one of the secret's hosts carries the placeholder (lib/sandbox/secret-boundary.ts)."""

    __slots__ = ("_placeholders",)

    def __init__(self, placeholders):
        self._placeholders = dict(placeholders)

    def __getitem__(self, name):
        if name not in self._placeholders:
            listed = ", ".join(self._placeholders) or "none"
            raise KeyError(
                f"{name!r} is not among this tool's secrets ({listed}): register a new version that lists it in "
                "`secrets`, and ask the person to add it in Settings → Secrets."
            )
        return self._placeholders[name]

    def get(self, name, default=None):
        return self._placeholders.get(name, default)

    def __contains__(self, name):
        return name in self._placeholders

    def __iter__(self):
        return iter(list(self._placeholders))

    def __len__(self):
        return len(self._placeholders)

    def __repr__(self):
        return f"secrets({', '.join(self._placeholders)})"


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
        request = {"name": name, "input": _to_json(input, "input")}
    except NotJson as error:
        raise TypeError(f"tools.call({name!r}, ...): the input is not JSON: {error}") from None
    reply = _HOST.request({"call": request})
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
            text = key if isinstance(key, str) else _dumps(key)
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
    numpy, pandas = sys.modules["numpy"], sys.modules["pandas"]
    if isinstance(value, numpy.generic):
        return _to_json(value.item(), path, depth)
    if isinstance(value, numpy.ndarray):
        return _to_json(value.tolist(), path, depth)
    if isinstance(value, pandas.DataFrame):
        # A table as its records, a missing value as None (JSON has no NaN).
        return _to_json(value.astype(object).where(value.notna(), None).to_dict("records"), path, depth)
    if isinstance(value, pandas.Series):
        return _to_json(value.astype(object).where(value.notna(), None).to_dict(), path, depth)
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


def call(job):
    """Check, then run: a tool's entry point with the input, a compile, or a snippet's last value."""
    mode, limits = job["mode"], job["limits"]
    verdict, tree = policy.checked(job["code"], mode != "snippet", job.get("skipPolicy", False))
    if not verdict["ok"]:
        return {"ok": False, "violations": verdict["violations"]}
    printed = _Printed(limits["consoleChars"])
    sys.stdout = sys.stderr = printed
    try:
        secrets = _Secrets(job.get("secrets") or {})
        value = _evaluate(mode, tree, verdict["entry"], job.get("input", {}), job.get("skipPolicy", False), secrets)
        try:
            text = _dumps(_to_json(value), ensure_ascii=False)
        except NotJson as error:
            raise TypeError(f"The result is not JSON: {error}") from None
        # Python's own str() beside the JSON, which cannot tell 212.0 from 212 (SEAT's scripts read this text).
        result = {"ok": True, "text": str(value)[: limits["outputChars"]]}
        if len(text) > limits["outputChars"]:
            result.update(output=text[: limits["outputChars"]], outputTruncated=True)
        else:
            result["json"] = text
    except BaseException as error:  # SystemExit and KeyboardInterrupt included: the call answers all the same.
        result = {"ok": False, "error": _describe(error)}
    result.update(images=_figures(limits["imageChars"], printed), logs=printed.lines(), consoleTruncated=printed.truncated)
    return result


def _evaluate(mode, tree, entry, inputs, unrestricted, secrets):
    # The test-only switch turns the first layer off whole: all builtins and any import, so the jail alone holds.
    namespace = {"__name__": "tool", "tools": _TOOLS, "secrets": secrets} if unrestricted else _namespace(secrets)
    if mode == "snippet":
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<tool>", "exec"), namespace)
        return eval(compile(ast.Expression(last.value), "<tool>", "eval"), namespace) if last else None
    exec(compile(tree, "<tool>", "exec"), namespace)
    function = namespace.get(entry) if entry else None
    if not callable(function):
        raise NameError("The code defines no entry point `run`.")
    if mode == "compile":
        return None
    return function(**inputs) if _takes_keywords(function, entry, inputs) else function(inputs)


def _namespace(secrets):
    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        # C code imports through the builtins of the frame it runs in (datetime.strptime imports _strptime, numpy's
        # tofile imports os) with a list for fromlist, where an import statement passes None or a tuple: a module
        # already loaded passes then, as does a private one (tool code cannot write its name).
        loaded = name in sys.modules and (name.startswith("_") or isinstance(fromlist, list))
        if level or not (policy.allowed_module(name) or loaded):
            raise ImportError(f"Importing `{name}` is not allowed in a tool.")
        return __import__(name, globals, locals, fromlist, level)

    own_builtins = dict(_SAFE_BUILTINS)
    own_builtins["__import__"] = guarded_import
    own_builtins["tools"] = _TOOLS
    own_builtins["secrets"] = secrets
    return {"__builtins__": own_builtins, "__name__": "tool"}


def _show(*args, **kwargs):
    """plt.show() in a tool: its figures go to the person, as PNG on the result."""
    _SHOWN.extend(_drawn())


def _drawn():
    pyplot = sys.modules["matplotlib.pyplot"]
    images = []
    for number in pyplot.get_fignums():
        buffer = io.BytesIO()
        pyplot.figure(number).savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        images.append(_b64encode(buffer.getvalue()).decode())
    pyplot.close("all")
    return images


def _figures(budget, printed):
    """The figures shown and those left open when the call ended, as far as the budget of characters goes."""
    try:
        drawn = _SHOWN + _drawn()
    except Exception as error:
        printed.write(f"[the figures could not be drawn: {type(error).__name__}: {error}]\n")
        return []
    kept = []
    for image in drawn:
        if len(image) > budget:
            printed.write(f"[{len(drawn) - len(kept)} more figure(s) not shown: over the size limit of images]\n")
            break
        budget -= len(image)
        kept.append(image)
    return kept


def _takes_keywords(function, entry, inputs):
    """`run(inputs)` takes the input object; a SEAT-style `f(celsius)` takes the input's fields as keyword arguments
    when they are its parameters (or it takes **kwargs), and the whole object when it has one parameter else."""
    if entry == policy.POLICY["entryPoint"] or not isinstance(inputs, dict):
        return False
    code = function.__code__
    names = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    takes_any = bool(code.co_flags & 0x08)
    return set(inputs) <= names or takes_any or code.co_argcount != 1
