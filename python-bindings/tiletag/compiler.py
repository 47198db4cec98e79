"""The tile DSL's compiler: a kernel function's AST to tile and tag IR.

The function is read, never run. Names are Python values (ints, floats,
strings, tuples: folded at compile time, like Triton's constexprs) or IR
values (an index, a scalar, a tile, a global buffer). Every op the compiler
writes carries the location of the Python expression it came from, so that
MLIR's verifier errors and the checkers' counterexamples point at the
Python source.

Index constants are written once each, at the top of the kernel, in
increasing order (as kernels are written by hand); other constants where
they are used.
"""

import ast
import inspect
import math
import textwrap

from . import lang
from .errors import CompilationError

INDEX = lang.index
I1 = lang.i1


class TileType:
    """A tile: a static-shape tensor of `elem`."""

    def __init__(self, shape, elem):
        self.shape = tuple(shape)
        self.elem = elem

    def mlir(self):
        return "tensor<%s>" % "x".join([str(d) for d in self.shape] + [self.elem.name])

    def __eq__(self, other):
        return isinstance(other, TileType) and (self.shape, self.elem.name) == \
            (other.shape, other.elem.name)

    def __hash__(self):
        return hash((self.shape, self.elem.name))

    def __str__(self):
        return self.mlir()


class BufferType:
    """A global memref operand."""

    def __init__(self, dims, elem):
        self.dims = tuple(dims)   # int (static) or None (dynamic)
        self.elem = elem

    def mlir(self):
        return "memref<%s>" % "x".join(["?" if d is None else str(d) for d in self.dims]
                                       + [self.elem.name])

    def __str__(self):
        return self.mlir()


def mlir_type(t):
    return t.name if isinstance(t, lang.DType) else t.mlir()


def same_type(a, b):
    if isinstance(a, lang.DType) and isinstance(b, lang.DType):
        return a.name == b.name
    return a == b


def elem_of(t):
    return t if isinstance(t, lang.DType) else t.elem


def shape_of(t):
    return t.shape if isinstance(t, TileType) else None


class Value:
    """An IR value: its SSA name and type (a DType for scalars)."""

    def __init__(self, ssa, type):
        self.ssa = ssa
        self.type = type

    def __repr__(self):
        return "%s : %s" % (self.ssa, mlir_type(self.type))


class BufferValue(Value):
    """A kernel operand in global memory."""

    def __init__(self, ssa, type, name):
        super().__init__(ssa, type)
        self.name = name


class ShapeOf:
    """``X.shape``: indexing it gives memref.dim."""

    def __init__(self, buffer):
        self.buffer = buffer


def float_text(value, elem):
    """A float literal MLIR parses exactly in `elem` (infinities and NaN as
    bit patterns). ValueError for an infinity the type does not have (the
    fp8 types but f8E5M2)."""
    if math.isfinite(value):
        return repr(float(value))
    bits = {("f32", 1): "0x7F800000", ("f32", -1): "0xFF800000",
            ("f16", 1): "0x7C00", ("f16", -1): "0xFC00",
            ("bf16", 1): "0x7F80", ("bf16", -1): "0xFF80",
            ("f64", 1): "0x7FF0000000000000", ("f64", -1): "0xFFF0000000000000",
            ("f8E5M2", 1): "0x7C", ("f8E5M2", -1): "0xFC"}
    if math.isnan(value):
        return {"f32": "0x7FC00000", "f16": "0x7E00", "bf16": "0x7FC0",
                "f64": "0x7FF8000000000000", "f8E4M3FN": "0x7F",
                "f8E5M2": "0x7E", "f8E4M3FNUZ": "0x80",
                "f8E5M2FNUZ": "0x80"}[elem.name]
    key = (elem.name, 1 if value > 0 else -1)
    if key not in bits:
        raise ValueError("%s has no infinity" % elem.name)
    return bits[key]


class Builder:
    """The text of a kernel body, op by op."""

    def __init__(self, loc_text):
        self.lines = []
        self.indent = 1
        self.counter = 0
        self.loc_text = loc_text   # node -> 'loc("file":line:col)'
        self.index_constants = {}

    def fresh(self, hint="v"):
        self.counter += 1
        return "%%%s%d" % (hint, self.counter)

    def line(self, text, node=None):
        loc = " " + self.loc_text(node) if node is not None else ""
        self.lines.append("  " * self.indent + text + loc)

    def op(self, text, type, node, hint="v"):
        ssa = self.fresh(hint)
        self.line("%s = %s" % (ssa, text), node)
        return Value(ssa, type)

    def index_constant(self, n):
        name = "%%c%d" % n if n >= 0 else "%%c_neg%d" % -n
        self.index_constants[n] = name
        return Value(name, INDEX)


def _is_python_value(x):
    return isinstance(x, (bool, int, float, str, tuple, list, type(None),
                          lang.DType, slice))


class Scope(dict):
    """Names visible in a block: a chain of dicts (a loop body sees the
    names before the loop; its own assignments stay its own)."""

    def __init__(self, parent=None):
        super().__init__()
        self.parent = parent

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s:
                return True, s[name]
            s = s.parent
        return False, None

    def has(self, name):
        return self.lookup(name)[0]


def assigned_names(stmts):
    """Names a list of statements assigns (not counting nested functions)."""
    names = []

    def target(t):
        if isinstance(t, ast.Name):
            if t.id not in names:
                names.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e)

    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    target(t)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                target(node.target)
            elif isinstance(node, ast.For):
                target(node.target)
    return names


CONSTRUCTS = {
    ast.While: "'while' loops (use 'for ... in range(...)')",
    ast.With: "'with' blocks",
    ast.Try: "'try' blocks",
    ast.Raise: "'raise'",
    ast.FunctionDef: "nested functions",
    ast.AsyncFunctionDef: "nested functions",
    ast.ClassDef: "classes",
    ast.Lambda: "lambdas",
    ast.ListComp: "list comprehensions",
    ast.SetComp: "set comprehensions",
    ast.DictComp: "dict comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.Dict: "dicts",
    ast.Set: "sets",
    ast.Break: "'break'",
    ast.Continue: "'continue'",
    ast.Global: "'global'",
    ast.Nonlocal: "'nonlocal'",
    ast.Delete: "'del'",
    ast.Import: "'import'",
    ast.ImportFrom: "'import'",
    ast.Yield: "'yield'",
    ast.YieldFrom: "'yield'",
    ast.Await: "'await'",
    ast.JoinedStr: "f-strings",
    ast.Starred: "'*' arguments",
}


class KernelCompiler:
    """Compiles one DSL kernel function to the text of a tile.kernel."""

    def __init__(self, fn, name, grid, sizes, check, contract_name):
        self.fn = fn
        self.name = name
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        try:
            lines, self.first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            raise CompilationError(
                "cannot read the source of %s: the DSL compiles a kernel from "
                "its source, so define it in a file (or a notebook cell)" %
                fn.__qualname__, fn.__code__.co_filename,
                fn.__code__.co_firstlineno, 1) from None
        source = textwrap.dedent("".join(lines))
        self.col_offset = len(lines[0]) - len(lines[0].lstrip())
        tree = ast.parse(source)
        self.func = tree.body[0]
        self.globals = dict(fn.__globals__)
        if fn.__closure__:
            for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.globals[var] = cell.cell_contents
                except ValueError:
                    pass
        self.grid = grid
        self.sizes = sizes
        self.check = check
        self.contract_name = contract_name
        self.builder = Builder(self.loc)
        self.operations = {getattr(lang, n): n for n in lang.OPERATIONS}
        self.operations[lang.cdiv] = "cdiv"

    # -- locations and errors ---------------------------------------------
    def position(self, node):
        line = self.first_line + getattr(node, "lineno", 1) - 1
        col = getattr(node, "col_offset", 0) + self.col_offset + 1
        return line, col

    def loc(self, node):
        line, col = self.position(node)
        escaped = self.file.replace("\\", "\\\\").replace('"', '\\"')
        return 'loc("%s":%d:%d)' % (escaped, line, col)

    def error(self, node, message):
        line, col = self.position(node)
        return CompilationError(message, self.file, line, col)

    # -- the kernel ---------------------------------------------------------
    def compile(self):
        f = self.func
        if not isinstance(f, ast.FunctionDef):
            raise self.error(f, "a kernel is a plain function (def)")
        args = f.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or \
                args.posonlyargs:
            raise self.error(f, "a kernel's parameters are plain names with "
                                "annotations (no defaults, *args or keywords)")
        scope = Scope()
        params = []
        try:
            annotations = inspect.get_annotations(self.fn, eval_str=True)
        except Exception as x:
            raise self.error(f, "the parameters' annotations: %s" % x) from None
        for a in args.args:
            ann = annotations.get(a.arg)
            if ann is None:
                raise self.error(a, "parameter '%s' needs an annotation: "
                                    "tiletag.Buffer(dtype, extents...) for a "
                                    "global buffer, or a scalar type "
                                    "(tiletag.f32, tiletag.i1, ...)" % a.arg)
            ssa = "%" + a.arg
            if isinstance(ann, lang.Buffer):
                btype = BufferType([d if isinstance(d, int) else None
                                    for d in ann.dims], ann.dtype)
                scope[a.arg] = BufferValue(ssa, btype, a.arg)
                attrs = 'tile.name = "%s"' % a.arg
                if ann.nondecreasing:
                    attrs += ", tile.nondecreasing"
                params.append(("%s: %s {%s}" % (ssa, btype.mlir(), attrs), ann))
            elif isinstance(ann, lang.DType):
                scope[a.arg] = Value(ssa, ann)
                params.append(('%s: %s {tile.name = "%s"}' % (ssa, ann.name, a.arg),
                               ann))
            else:
                raise self.error(a, "parameter '%s': %r is neither a "
                                    "tiletag.Buffer nor an element type" % (a.arg, ann))
        if f.returns is not None:
            raise self.error(f.returns, "a kernel returns nothing: it stores "
                                        "its results")

        grid = self.grid_exprs(f)
        if not 1 <= len(grid) <= 3:
            raise self.error(f, "the grid has 1 to 3 extents, not %d" % len(grid))
        self.grid_rank = len(grid)

        self.block(f.body, scope)
        self.builder.line("tile.return", f)

        attrs = []
        if self.contract_name:
            attrs.append("tag.contract = @%s" % self.contract_name)
        attrs.append("tile.launch = " + self.launch_attr(grid, params))
        header = "tile.kernel @%s(%s) grid(%d) attributes {%s} {" % (
            self.name, ", ".join(p for p, _ in params), len(grid), ", ".join(attrs))
        constants = ["  %s = arith.constant %d : index %s" % (
            name, n, self.loc(f)) for n, name in sorted(self.builder.index_constants.items())]
        return "\n".join([header] + constants + self.builder.lines + ["} " + self.loc(f)])

    def grid_exprs(self, f):
        grid = self.grid
        if grid is None:
            raise self.error(f, "@tiletag.kernel needs grid=: the grid's extents "
                                "as a function of the sizes")
        if callable(grid):
            names = list(inspect.signature(grid).parameters)
            unknown = [n for n in names if n not in self.sizes]
            if unknown:
                raise self.error(f, "the grid function's parameter%s %s %s not "
                                    "among the sizes (%s)" % (
                                        "s" if len(unknown) > 1 else "",
                                        ", ".join(unknown),
                                        "are" if len(unknown) > 1 else "is",
                                        ", ".join(self.sizes)))
            try:
                grid = grid(*[lang.SizeExpr(n) for n in names])
            except TypeError as e:
                raise self.error(f, "the grid function: %s" % e) from None
        if not isinstance(grid, (tuple, list)):
            grid = (grid,)
        return [str(g) for g in grid]

    def launch_attr(self, grid, params):
        if not self.sizes:
            raise self.error(self.func, "@tiletag.kernel needs sizes=: the problem "
                                        "sizes and their defaults")
        for k, v in self.sizes.items():
            if not k.isidentifier() or not isinstance(v, int) or v < 0:
                raise self.error(self.func, "sizes= maps size names to "
                                            "non-negative ints, not %r: %r" % (k, v))
        sizes = ", ".join("%s = %d" % kv for kv in self.sizes.items())
        shapes = ", ".join("%s = [%s]" % (p.split(":")[0][1:],
                                          ", ".join(str(d) for d in ann.dims))
                           for p, ann in params if isinstance(ann, lang.Buffer))
        text = "#tile.launch<sizes = [%s], grid = [%s], shapes = [%s]" % (
            sizes, ", ".join(grid), shapes)
        if self.check:
            text += ', check = "%s"' % self.check
        return text + ">"

    # -- statements ---------------------------------------------------------
    def block(self, stmts, scope):
        for stmt in stmts:
            self.statement(stmt, scope)

    def statement(self, s, scope):
        if type(s) in CONSTRUCTS:
            raise self.error(s, "%s are not supported in a tile kernel" %
                             CONSTRUCTS[type(s)])
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return  # a docstring
            self.expr(s.value, scope)
        elif isinstance(s, ast.Assign):
            value = self.expr(s.value, scope)
            for target in s.targets:
                self.assign(target, value, scope, s.value)
        elif isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                raise self.error(s, "augmented assignment to %s is not supported"
                                 % ast.unparse(s.target))
            value = self.binary(s.op, self.expr(s.target, scope),
                                self.expr(s.value, scope), s)
            self.assign(s.target, value, scope, s)
        elif isinstance(s, ast.AnnAssign):
            if s.value is None:
                raise self.error(s, "a declaration without a value")
            self.assign(s.target, self.expr(s.value, scope), scope, s.value)
        elif isinstance(s, ast.For):
            self.for_loop(s, scope)
        elif isinstance(s, ast.If):
            self.if_stmt(s, scope)
        elif isinstance(s, ast.Assert):
            self.assertion(s, scope)
        elif isinstance(s, ast.Pass):
            pass
        elif isinstance(s, ast.Return):
            if s.value is not None:
                raise self.error(s, "a kernel returns nothing: store the result "
                                    "with tiletag.store")
            raise self.error(s, "'return' is not supported in a tile kernel (the "
                                "body ends at its last statement)")
        else:
            raise self.error(s, "this statement (%s) is not supported in a tile "
                                "kernel" % type(s).__name__)

    def assign(self, target, value, scope, node):
        if isinstance(target, ast.Name):
            scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error(node, "cannot unpack %s into %d names" % (
                    self.describe(value), len(target.elts)))
            for t, v in zip(target.elts, value):
                self.assign(t, v, scope, node)
        elif isinstance(target, ast.Subscript):
            self.memref_store(target, value, scope, node)
        else:
            raise self.error(target, "cannot assign to %s" % ast.unparse(target))

    def memref_store(self, target, value, scope, node):
        buf = self.expr(target.value, scope)
        if not isinstance(buf, BufferValue):
            raise self.error(target, "only a kernel's buffer operands take "
                                     "element stores (X[i] = v)")
        indices = self.subscript_indices(target, scope)
        value = self.coerce_scalar(value, buf.type.elem, node)
        self.builder.line("memref.store %s, %s[%s] : %s" % (
            value.ssa, buf.ssa, ", ".join(i.ssa for i in indices), buf.type.mlir()), target)

    def subscript_indices(self, sub, scope):
        buf = self.expr(sub.value, scope)
        idx = sub.slice
        elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        if len(elts) != len(buf.type.dims):
            raise self.error(sub, "%s has rank %d, indexed with %d indices" % (
                buf.name, len(buf.type.dims), len(elts)))
        return [self.as_index(self.expr(e, scope), e) for e in elts]

    # -- loops ----------------------------------------------------------------
    def for_loop(self, s, scope):
        if s.orelse:
            raise self.error(s, "'for ... else' is not supported")
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range" and not scope.has("range")):
            raise self.error(it, "a tile kernel loops over range(...) only")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error(it, "range takes 1 to 3 positional arguments")
        bounds = [self.as_index(self.expr(a, scope), a) for a in it.args]
        if len(bounds) == 1:
            lb, ub, step = self.builder.index_constant(0), bounds[0], self.builder.index_constant(1)
        elif len(bounds) == 2:
            (lb, ub), step = bounds, self.builder.index_constant(1)
        else:
            lb, ub, step = bounds
        if not isinstance(s.target, ast.Name):
            raise self.error(s.target, "the loop variable is one name")
        var = s.target.id
        if var in assigned_names(s.body):
            raise self.error(s.target, "the loop variable '%s' is assigned in the "
                                       "loop body" % var)

        # Values carried around the loop: names the body assigns that exist
        # before it (as IR values: a Python number becomes one).
        carried = []
        for name in assigned_names(s.body):
            found, value = scope.lookup(name)
            if not found or name == var:
                continue
            value = self.materialize(value, s, name)
            if not isinstance(value, Value) or isinstance(value, BufferValue):
                raise self.error(s, "'%s' is assigned in the loop but holds %s "
                                    "before it; only index, scalar and tile "
                                    "values can be carried" % (name, self.describe(value)))
            carried.append((name, value))

        b = self.builder
        iv = b.fresh(var + "_")
        body = Scope(scope)
        body[var] = Value(iv, INDEX)
        args = []
        for name, init in carried:
            arg = b.fresh(name + "_")
            body[name] = Value(arg, init.type)
            args.append(arg)
        header = "scf.for %s = %s to %s step %s" % (iv, lb.ssa, ub.ssa, step.ssa)
        if carried:
            result = b.fresh("for")
            types = ", ".join(mlir_type(v.type) for _, v in carried)
            header = "%s%s = %s iter_args(%s) -> (%s) {" % (
                result, ":%d" % len(carried) if len(carried) > 1 else "", header,
                ", ".join("%s = %s" % (a, v.ssa) for a, (_, v) in zip(args, carried)),
                types)
        else:
            header += " {"
        b.line(header)
        b.indent += 1
        self.block(s.body, body)
        if carried:
            yielded = []
            for name, init in carried:
                value = self.materialize(body[name], s, name)
                if not isinstance(value, Value) or not same_type(value.type, init.type):
                    raise self.error(s, "'%s' enters the loop as %s but the body "
                                        "makes it %s" % (name, self.describe(init),
                                                         self.describe(value)))
                yielded.append(value)
            b.line("scf.yield %s : %s" % (", ".join(v.ssa for v in yielded), types), s)
        b.indent -= 1
        b.lines.append("  " * b.indent + "} " + self.loc(s))
        for i, (name, init) in enumerate(carried):
            ssa = result if len(carried) == 1 else "%s#%d" % (result, i)
            scope[name] = Value(ssa, init.type)

    # -- if -------------------------------------------------------------------
    def if_stmt(self, s, scope):
        cond = self.expr(s.test, scope)
        if not isinstance(cond, Value):
            # A Python condition: only the branch taken is compiled.
            self.block(s.body if cond else s.orelse, scope)
            return
        if not same_type(cond.type, I1):
            raise self.error(s.test, "an if condition is an i1 value, not %s" %
                             self.describe(cond))
        b = self.builder
        then_scope, else_scope = Scope(scope), Scope(scope)
        saved_lines, saved_indent = b.lines, b.indent
        b.indent += 1
        b.lines = []
        self.block(s.body, then_scope)
        then_lines = b.lines
        b.lines = []
        self.block(s.orelse, else_scope)
        else_lines = b.lines
        b.lines, b.indent = saved_lines, saved_indent

        results = []
        for name in assigned_names(s.body) + assigned_names(s.orelse):
            if any(name == r for r, _, _ in results):
                continue
            before_found, before = scope.lookup(name)
            in_then, in_else = name in then_scope, name in else_scope
            if not before_found and not (in_then and in_else):
                continue  # local to one branch
            t = then_scope[name] if in_then else before
            e = else_scope[name] if in_else else before
            results.append((name, t, e))
        yields = [[], []]
        types = []
        for name, t, e in results:
            t = self.materialize_into(t, then_lines, s, name)
            e = self.materialize_into(e, else_lines, s, name)
            if not isinstance(t, Value) or not isinstance(e, Value) or \
                    not same_type(t.type, e.type):
                raise self.error(s, "'%s' is %s in one branch and %s in the "
                                    "other" % (name, self.describe(t), self.describe(e)))
            yields[0].append(t)
            yields[1].append(e)
            types.append(mlir_type(t.type))
        ind = "  " * (b.indent + 1)
        if results:
            result = b.fresh("if")
            tys = ", ".join(types)
            b.line("%s%s = scf.if %s -> (%s) {" % (
                result, ":%d" % len(results) if len(results) > 1 else "", cond.ssa, tys))
            b.lines += then_lines + [ind + "scf.yield %s : %s %s" % (
                ", ".join(v.ssa for v in yields[0]), tys, self.loc(s))]
            b.lines.append("  " * b.indent + "} else {")
            b.lines += else_lines + [ind + "scf.yield %s : %s %s" % (
                ", ".join(v.ssa for v in yields[1]), tys, self.loc(s))]
            b.lines.append("  " * b.indent + "} " + self.loc(s))
            for i, (name, t, _) in enumerate(results):
                ssa = result if len(results) == 1 else "%s#%d" % (result, i)
                scope[name] = Value(ssa, t.type)
        else:
            b.line("scf.if %s {" % cond.ssa)
            b.lines += then_lines
            if else_lines:
                b.lines.append("  " * b.indent + "} else {")
                b.lines += else_lines
            b.lines.append("  " * b.indent + "} " + self.loc(s))

    def materialize_into(self, value, lines, node, name):
        """`value` as an IR value whose definition (if new) goes at the end
        of `lines`."""
        if isinstance(value, Value):
            return value
        b = self.builder
        saved = b.lines
        b.lines = lines
        b.indent += 1
        try:
            return self.materialize(value, node, name)
        finally:
            b.indent -= 1
            b.lines = saved

    def materialize(self, value, node, name=None):
        """Python ints become index values, floats f32 and bools i1 (for
        values carried by loops and ifs)."""
        if isinstance(value, bool):
            return self.scalar_constant(value, I1, node)
        if isinstance(value, int):
            return self.builder.index_constant(value)
        if isinstance(value, float):
            return self.scalar_constant(value, lang.f32, node)
        return value

    # -- assertions -----------------------------------------------------------
    def assertion(self, s, scope):
        msg = s.msg
        if msg is None or not (isinstance(msg, ast.Constant) and isinstance(msg.value, str)):
            raise self.error(s, "an assertion in a tile kernel needs a message "
                                "string: assert a == b, \"why\"")
        test = s.test
        if not isinstance(test, ast.Compare):
            raise self.error(test, "a tile kernel asserts comparisons of index "
                                   "values (==, !=, <, <=, >, >=)")
        text = msg.value.replace("\\", "\\\\").replace('"', '\\"')
        operands = [self.expr(e, scope) for e in [test.left] + test.comparators]
        if len(test.ops) == 2 and isinstance(test.ops[0], (ast.LtE,)) and \
                isinstance(test.ops[1], ast.Lt):
            lo, x, hi = [self.as_index(v, n) for v, n in
                         zip(operands, [test.left] + test.comparators)]
            self.builder.line('tag.assert_range %s in [%s, %s), "%s" : index' % (
                x.ssa, lo.ssa, hi.ssa, text), s)
            return
        if len(test.ops) != 1:
            raise self.error(test, "an assertion compares two values, or is a "
                                   "range lo <= x < hi")
        preds = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le",
                 ast.Gt: "gt", ast.GtE: "ge"}
        pred = preds.get(type(test.ops[0]))
        if pred is None:
            raise self.error(test, "assertions compare with ==, !=, <, <=, >, >=")
        lhs = self.as_index(operands[0], test.left)
        rhs = self.as_index(operands[1], test.comparators[0])
        self.builder.line('tag.assert %s %s, %s, "%s" : index' % (
            pred, lhs.ssa, rhs.ssa, text), s)

    # -- expressions ----------------------------------------------------------
    def describe(self, v):
        if isinstance(v, BufferValue):
            return "the buffer %s (%s)" % (v.name, v.type.mlir())
        if isinstance(v, Value):
            if isinstance(v.type, lang.DType):
                return "an index value" if v.type.name == "index" else \
                    "a %s value" % v.type.name
            return "a %s tile" % v.type.mlir()
        if isinstance(v, ShapeOf):
            return "a buffer's shape"
        return "the Python value %r" % (v,)

    def expr(self, e, scope):
        if type(e) in CONSTRUCTS:
            raise self.error(e, "%s are not supported in a tile kernel" %
                             CONSTRUCTS[type(e)])
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, ast.Name):
            found, value = scope.lookup(e.id)
            if found:
                return value
            if e.id in self.globals:
                return self.globals[e.id]
            import builtins
            if hasattr(builtins, e.id):
                # range, min, max, float, ... (others are refused where called)
                return getattr(builtins, e.id)
            raise self.error(e, "unknown name '%s'" % e.id)
        if isinstance(e, ast.Attribute):
            base = self.expr(e.value, scope)
            if isinstance(base, BufferValue):
                if e.attr == "shape":
                    return ShapeOf(base)
                raise self.error(e, "a buffer has .shape, not .%s" % e.attr)
            if isinstance(base, Value):
                if e.attr == "shape" and isinstance(base.type, TileType):
                    return base.type.shape
                if e.attr == "dtype":
                    return elem_of(base.type)
                raise self.error(e, "%s has no attribute '%s'" % (self.describe(base), e.attr))
            try:
                return getattr(base, e.attr)
            except AttributeError:
                raise self.error(e, "%r has no attribute '%s'" % (base, e.attr)) from None
        if isinstance(e, (ast.Tuple, ast.List)):
            return tuple(self.expr(x, scope) for x in e.elts)
        if isinstance(e, ast.Subscript):
            return self.subscript(e, scope)
        if isinstance(e, ast.BinOp):
            return self.binary(e.op, self.expr(e.left, scope), self.expr(e.right, scope), e)
        if isinstance(e, ast.UnaryOp):
            return self.unary(e.op, self.expr(e.operand, scope), e)
        if isinstance(e, ast.BoolOp):
            values = [self.expr(v, scope) for v in e.values]
            op = ast.BitAnd() if isinstance(e.op, ast.And) else ast.BitOr()
            out = values[0]
            for v in values[1:]:
                out = self.binary(op, out, v, e)
            return out
        if isinstance(e, ast.Compare):
            if len(e.ops) != 1:
                raise self.error(e, "chained comparisons are only for assertions "
                                    "(assert lo <= x < hi)")
            return self.compare(e.ops[0], self.expr(e.left, scope),
                                self.expr(e.comparators[0], scope), e)
        if isinstance(e, ast.IfExp):
            cond = self.expr(e.test, scope)
            if not isinstance(cond, Value):
                return self.expr(e.body if cond else e.orelse, scope)
            return self.select(cond, self.expr(e.body, scope), self.expr(e.orelse, scope), e)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.Slice):
            raise self.error(e, "slices are not supported in a tile kernel")
        raise self.error(e, "this expression (%s) is not supported in a tile "
                            "kernel" % type(e).__name__)

    def subscript(self, e, scope):
        base = self.expr(e.value, scope)
        if isinstance(base, ShapeOf):
            d = self.expr(e.slice, scope)
            dims = base.buffer.type.dims
            if not isinstance(d, int) or not 0 <= d < len(dims):
                raise self.error(e.slice, "%s has %d dimensions; .shape takes a "
                                          "Python int below that, not %r" % (
                                              base.buffer.name, len(dims), d))
            return self.builder.op("memref.dim %s, %s : %s" % (
                base.buffer.ssa, self.builder.index_constant(d).ssa,
                base.buffer.type.mlir()), INDEX, e, "dim")
        if isinstance(base, BufferValue):
            indices = self.subscript_indices(e, scope)
            return self.builder.op("memref.load %s[%s] : %s" % (
                base.ssa, ", ".join(i.ssa for i in indices), base.type.mlir()),
                base.type.elem, e)
        if isinstance(base, Value):
            raise self.error(e, "tiles are not indexed element by element; use "
                                "tiletag.load or a reduction")
        index = self.expr(e.slice, scope)
        if isinstance(index, Value):
            raise self.error(e, "a Python value indexed by an IR value")
        try:
            return base[index]
        except (TypeError, IndexError, KeyError) as x:
            raise self.error(e, str(x)) from None

    # -- conversions ----------------------------------------------------------
    def as_index(self, v, node):
        if isinstance(v, bool):
            raise self.error(node, "expected an index value, got a bool")
        if isinstance(v, int):
            return self.builder.index_constant(v)
        if isinstance(v, Value) and not isinstance(v, BufferValue) and \
                isinstance(v.type, lang.DType) and v.type.name == "index":
            return v
        raise self.error(node, "expected an index value, got %s" % self.describe(v))

    def number(self, value, node):
        if not isinstance(value, (int, float, bool)):
            raise self.error(node, "expected a Python number, not %r" % (value,))
        return value

    def float_literal(self, value, elem, node):
        try:
            return float_text(value, elem)
        except ValueError as error:
            raise self.error(node, str(error))

    def scalar_constant(self, value, dtype, node):
        value = self.number(value, node)
        if dtype.name == "index":
            return self.builder.index_constant(int(value))
        if dtype.name == "i1":
            text = "true" if value else "false"
        elif dtype.is_float:
            text = self.float_literal(float(value), dtype, node)
        else:
            text = str(int(value))
        return self.builder.op("arith.constant %s : %s" % (text, dtype.name), dtype, node, "cst")

    def tile_constant(self, value, ttype, node):
        value = self.number(value, node)
        elem = ttype.elem
        if elem.is_float:
            text = self.float_literal(float(value), elem, node)
        elif elem.name == "i1":
            text = "true" if value else "false"
        else:
            text = str(int(value))
        return self.builder.op("arith.constant dense<%s> : %s" % (text, ttype.mlir()),
                               ttype, node, "cst")

    def coerce_scalar(self, v, dtype, node):
        if isinstance(v, Value):
            if not same_type(v.type, dtype):
                raise self.error(node, "expected a %s value, got %s" % (
                    dtype.name, self.describe(v)))
            return v
        if isinstance(v, (int, float, bool)):
            if isinstance(v, float) and not dtype.is_float:
                raise self.error(node, "the float %r where a %s is expected" % (v, dtype.name))
            return self.scalar_constant(v, dtype, node)
        raise self.error(node, "expected a %s value, got %s" % (dtype.name, self.describe(v)))

    def unify(self, a, b, node, what):
        """Two operands of an elementwise op as IR values of one type: a
        Python number takes the other's type; a scalar with a tile is
        splat (tensor.splat)."""
        if not isinstance(a, Value) and not isinstance(b, Value):
            raise self.error(node, "no IR value among the operands of %s" % what)
        for v in (a, b):
            if isinstance(v, BufferValue):
                raise self.error(node, "%s of a buffer: load a tile first "
                                       "(tiletag.load)" % what)
            if isinstance(v, Value) and isinstance(v.type, BufferType):
                raise self.error(node, "%s of a buffer" % what)
            if not isinstance(v, (Value, int, float, bool)):
                raise self.error(node, "%s of %s" % (what, self.describe(v)))
        ta = a.type if isinstance(a, Value) else None
        tb = b.type if isinstance(b, Value) else None
        if ta is not None and tb is not None and not same_type(elem_of(ta), elem_of(tb)):
            raise self.error(node, "%s of %s and %s: the element types differ "
                                   "(cast one with tiletag.cast)" % (
                                       what, self.describe(a), self.describe(b)))
        if isinstance(ta, TileType) and isinstance(tb, TileType) and ta.shape != tb.shape:
            raise self.error(node, "%s of tiles of shapes %s and %s: shapes must "
                                   "match (broadcast with tiletag.broadcast)" % (
                                       what, "x".join(map(str, ta.shape)),
                                       "x".join(map(str, tb.shape))))
        target = ta if isinstance(ta, TileType) else tb if isinstance(tb, TileType) \
            else (ta or tb)

        def fit(v):
            if isinstance(v, Value):
                if isinstance(target, TileType) and not isinstance(v.type, TileType):
                    return self.builder.op("tensor.splat %s : %s" % (v.ssa, target.mlir()),
                                           target, node, "splat")
                return v
            elem = elem_of(target)
            if isinstance(v, float) and not elem.is_float:
                raise self.error(node, "%s of the float %r and %s" % (
                    what, v, self.describe(a if isinstance(a, Value) else b)))
            if isinstance(target, TileType):
                return self.tile_constant(v, target, node)
            return self.scalar_constant(v, elem, node)
        return fit(a), fit(b)

    # -- arithmetic -----------------------------------------------------------
    def binary(self, op, a, b, node):
        if not isinstance(a, Value) and not isinstance(b, Value):
            try:   # Python values fold
                return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b,
                        ast.Mult: lambda: a * b, ast.Div: lambda: a / b,
                        ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
                        ast.Pow: lambda: a ** b, ast.BitAnd: lambda: a & b,
                        ast.BitOr: lambda: a | b}[type(op)]()
            except KeyError:
                raise self.error(node, "this operator is not supported") from None
            except Exception as x:
                raise self.error(node, str(x)) from None
        names = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
                 ast.FloorDiv: "//", ast.Mod: "%", ast.BitAnd: "&", ast.BitOr: "|",
                 ast.BitXor: "^", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
                 ast.MatMult: "@"}
        sym = names.get(type(op), "?")
        a, b = self.unify(a, b, node, "'%s'" % sym)
        elem = elem_of(a.type)
        if elem.is_float:
            name = {ast.Add: "addf", ast.Sub: "subf", ast.Mult: "mulf",
                    ast.Div: "divf"}.get(type(op))
            if name is None:
                raise self.error(node, "'%s' is not defined on %s values" % (sym, elem.name))
        elif elem.name == "i1":
            name = {ast.BitAnd: "andi", ast.BitOr: "ori", ast.BitXor: "xori"}.get(type(op))
            if name is None:
                raise self.error(node, "'%s' is not defined on i1 values (use &, |, "
                                       "^)" % sym)
        elif elem.name == "index":
            # Index values are sizes and positions: division, remainder and
            # comparisons read them as unsigned, as the tile IR does.
            name = {ast.Add: "addi", ast.Sub: "subi", ast.Mult: "muli",
                    ast.FloorDiv: "divui", ast.Mod: "remui"}.get(type(op))
            if name is None:
                raise self.error(node, "'%s' is not defined on index values%s" % (
                    sym, " (use // for division)" if sym == "/" else ""))
        else:
            name = {ast.Add: "addi", ast.Sub: "subi", ast.Mult: "muli",
                    ast.BitAnd: "andi", ast.BitOr: "ori",
                    ast.BitXor: "xori"}.get(type(op))
            if name is None:
                raise self.error(node, "'%s' is not defined on %s values in the "
                                       "DSL (cast to index for // and %%)" % (sym, elem.name))
        return self.builder.op("arith.%s %s, %s : %s" % (name, a.ssa, b.ssa, mlir_type(a.type)),
                               a.type, node)

    def unary(self, op, v, node):
        if not isinstance(v, Value):
            try:
                return {ast.USub: lambda: -v, ast.UAdd: lambda: +v,
                        ast.Not: lambda: not v, ast.Invert: lambda: ~v}[type(op)]()
            except Exception as x:
                raise self.error(node, str(x)) from None
        if isinstance(v, BufferValue):
            raise self.error(node, "arithmetic on a buffer: load a tile first")
        elem = elem_of(v.type)
        if isinstance(op, ast.UAdd):
            return v
        if isinstance(op, ast.USub):
            if elem.is_float:
                return self.builder.op("arith.negf %s : %s" % (v.ssa, mlir_type(v.type)),
                                       v.type, node)
            return self.binary(ast.Sub(), 0, v, node)
        if isinstance(op, (ast.Not, ast.Invert)) and elem.name == "i1":
            return self.binary(ast.BitXor(), v, True, node)
        raise self.error(node, "this operator is not defined on %s" % self.describe(v))

    def compare(self, op, a, b, node):
        if not isinstance(a, Value) and not isinstance(b, Value):
            return self.binary_fold_compare(op, a, b, node)
        a, b = self.unify(a, b, node, "a comparison")
        elem = elem_of(a.type)
        rtype = TileType(a.type.shape, I1) if isinstance(a.type, TileType) else I1
        if elem.is_float:
            pred = {ast.Eq: "oeq", ast.NotEq: "une", ast.Lt: "olt", ast.LtE: "ole",
                    ast.Gt: "ogt", ast.GtE: "oge"}.get(type(op))
            kind = "cmpf"
        else:
            unsigned = elem.name in ("index", "i1")
            pred = {ast.Eq: "eq", ast.NotEq: "ne",
                    ast.Lt: "ult" if unsigned else "slt",
                    ast.LtE: "ule" if unsigned else "sle",
                    ast.Gt: "ugt" if unsigned else "sgt",
                    ast.GtE: "uge" if unsigned else "sge"}.get(type(op))
            kind = "cmpi"
        if pred is None:
            raise self.error(node, "this comparison is not supported")
        return self.builder.op("arith.%s %s, %s, %s : %s" % (
            kind, pred, a.ssa, b.ssa, mlir_type(a.type)), rtype, node)

    def binary_fold_compare(self, op, a, b, node):
        try:
            return {ast.Eq: lambda: a == b, ast.NotEq: lambda: a != b,
                    ast.Lt: lambda: a < b, ast.LtE: lambda: a <= b,
                    ast.Gt: lambda: a > b, ast.GtE: lambda: a >= b,
                    ast.Is: lambda: a is b, ast.IsNot: lambda: a is not b,
                    ast.In: lambda: a in b, ast.NotIn: lambda: a not in b}[type(op)]()
        except Exception as x:
            raise self.error(node, str(x)) from None

    def select(self, cond, a, b, node):
        if not isinstance(cond, Value) or not same_type(elem_of(cond.type), I1):
            raise self.error(node, "a selection's condition is an i1 value or "
                                   "tile, not %s" % self.describe(cond))
        a, b = self.unify(a, b, node, "a selection")
        if isinstance(cond.type, TileType) and not isinstance(a.type, TileType):
            raise self.error(node, "an i1 tile selects between tiles")
        if isinstance(a.type, TileType) and isinstance(cond.type, TileType) and \
                cond.type.shape != a.type.shape:
            raise self.error(node, "the condition's shape %s is not the values' %s" % (
                cond.type.shape, a.type.shape))
        if isinstance(a.type, TileType) and not isinstance(cond.type, TileType):
            return self.builder.op("arith.select %s, %s, %s : %s" % (
                cond.ssa, a.ssa, b.ssa, a.type.mlir()), a.type, node)
        if isinstance(cond.type, TileType):
            return self.builder.op("arith.select %s, %s, %s : %s, %s" % (
                cond.ssa, a.ssa, b.ssa, cond.type.mlir(), a.type.mlir()), a.type, node)
        return self.builder.op("arith.select %s, %s, %s : %s" % (
            cond.ssa, a.ssa, b.ssa, mlir_type(a.type)), a.type, node)

    # -- calls ----------------------------------------------------------------
    def call(self, e, scope):
        fn = self.expr(e.func, scope)
        for k in e.keywords:
            if k.arg is None:
                raise self.error(e, "'**' arguments are not supported")
        op = self.operations.get(fn) if _hashable(fn) else None
        import builtins
        if op is None:
            if fn in (builtins.min, builtins.max):
                return self.minmax(fn is builtins.max, e, scope)
            if fn in (builtins.float, builtins.int, builtins.abs, builtins.len):
                args = [self.expr(a, scope) for a in e.args]
                if any(isinstance(a, Value) for a in args):
                    if fn is builtins.abs:
                        return self.math("absf", args[0], e)
                    raise self.error(e, "%s() of an IR value; use tiletag.cast" %
                                     fn.__name__)
                try:
                    return fn(*args)
                except Exception as x:
                    raise self.error(e, str(x)) from None
            if fn is builtins.range:
                raise self.error(e, "range(...) is only for 'for' loops")
            raise self.error(e.func, "'%s' is not a tile operation: a kernel calls "
                                     "tiletag's operations only" % ast.unparse(e.func))
        args = [self.expr(a, scope) for a in e.args]
        kwargs = {k.arg: self.expr(k.value, scope) for k in e.keywords}
        method = getattr(self, "op_" + op)
        try:
            inspect.signature(method).bind(e, *args, **kwargs)
        except TypeError as x:
            raise self.error(e, "tiletag.%s: %s" % (op, x)) from None
        return method(e, *args, **kwargs)

    def minmax(self, is_max, e, scope):
        args = [self.expr(a, scope) for a in e.args]
        if len(args) != 2 or e.keywords:
            raise self.error(e, "min/max of IR values take two arguments")
        if not any(isinstance(a, Value) for a in args):
            try:
                return max(args) if is_max else min(args)
            except TypeError as x:
                raise self.error(e, str(x)) from None
        return self.extremum(is_max, args[0], args[1], e, "max" if is_max else "min")

    def extremum(self, is_max, a, b, e, what):
        """The larger (or smaller) of two values: maximumf/minimumf of
        floats, maxui/minui of index values, maxsi/minsi of integers."""
        a, b = self.unify(a, b, e, what)
        elem = elem_of(a.type)
        if elem.is_float:
            name = "maximumf" if is_max else "minimumf"
        elif elem.name == "index":
            name = "maxui" if is_max else "minui"
        else:
            name = "maxsi" if is_max else "minsi"
        return self.builder.op("arith.%s %s, %s : %s" % (name, a.ssa, b.ssa,
                                                        mlir_type(a.type)), a.type, e)

    def shape_arg(self, e, shape, what="shape"):
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or not shape or \
                not all(isinstance(d, int) and not isinstance(d, bool) and d > 0
                        for d in shape):
            raise self.error(e, "a tile's %s is a tuple of positive Python ints, "
                                "not %r" % (what, shape))
        return tuple(shape)

    def dtype_arg(self, e, dtype):
        if not isinstance(dtype, lang.DType):
            raise self.error(e, "expected an element type (tiletag.f32, ...), not %r"
                             % (dtype,))
        return dtype

    def tile_arg(self, e, v, what):
        if not isinstance(v, Value) or not isinstance(v.type, TileType):
            raise self.error(e, "%s is a tile, not %s" % (what, self.describe(v)))
        return v

    def buffer_arg(self, e, v, what):
        if not isinstance(v, BufferValue):
            raise self.error(e, "%s is one of the kernel's buffer operands, not %s" % (
                what, self.describe(v)))
        return v

    def index_list(self, e, values, n, what):
        if isinstance(values, (int, Value)):
            values = (values,)
        if not isinstance(values, (tuple, list)):
            raise self.error(e, "%s is a list of index values" % what)
        if len(values) != n:
            raise self.error(e, "%s has %d entries; the buffer has rank %d" % (
                what, len(values), n))
        return [self.as_index(v, e) for v in values]

    def op_program_id(self, e, dim):
        if not isinstance(dim, int) or not 0 <= dim < self.grid_rank:
            raise self.error(e, "tiletag.program_id takes a grid dimension "
                                "0..%d (a Python int), not %r" % (self.grid_rank - 1, dim))
        return self.builder.op("tile.program_id %d" % dim, INDEX, e, "pid")

    def op_num_programs(self, e, dim):
        if not isinstance(dim, int) or not 0 <= dim < self.grid_rank:
            raise self.error(e, "tiletag.num_programs takes a grid dimension "
                                "0..%d (a Python int), not %r" % (self.grid_rank - 1, dim))
        return self.builder.op("tile.num_programs %d" % dim, INDEX, e, "nprog")

    def addressing(self, e, buf, offset, bounds):
        text = ""
        rank = len(buf.type.dims)
        if offset is not None:
            text += " offset [%s]" % ", ".join(
                v.ssa for v in self.index_list(e, offset, rank, "offset"))
        if bounds is not None:
            text += " bounds [%s]" % ", ".join(
                v.ssa for v in self.index_list(e, bounds, rank, "bounds"))
        return text

    def op_load(self, e, buffer, index, shape, padding=None, offset=None, bounds=None):
        buf = self.buffer_arg(e, buffer, "tiletag.load's first argument")
        shape = self.shape_arg(e, shape)
        rank = len(buf.type.dims)
        if len(shape) > rank:
            raise self.error(e, "a tile of rank %d from %s of rank %d" % (
                len(shape), buf.name, rank))
        idx = self.index_list(e, index, rank, "the block index")
        elem = buf.type.elem
        text = "tile.load %s[%s]%s" % (buf.ssa, ", ".join(v.ssa for v in idx),
                                        self.addressing(e, buf, offset, bounds))
        if padding is not None:
            if isinstance(padding, Value) or not isinstance(padding, (int, float)):
                raise self.error(e, "padding is a Python number")
            text += " padding(%s : %s)" % (self.float_literal(float(padding), elem, e)
                                           if elem.is_float else str(int(padding)), elem.name)
        ttype = TileType(shape, elem)
        return self.builder.op("%s : %s -> %s" % (text, buf.type.mlir(), ttype.mlir()),
                               ttype, e, "tile")

    def op_store(self, e, buffer, index, value, offset=None, bounds=None, combine=None):
        buf = self.buffer_arg(e, buffer, "tiletag.store's first argument")
        v = self.tile_arg(e, value, "the stored value")
        if not same_type(v.type.elem, buf.type.elem):
            raise self.error(e, "storing a %s tile into %s: cast it first "
                                "(tiletag.cast)" % (v.type.mlir(), self.describe(buf)))
        rank = len(buf.type.dims)
        if len(v.type.shape) > rank:
            raise self.error(e, "a tile of rank %d into %s of rank %d" % (
                len(v.type.shape), buf.name, rank))
        idx = self.index_list(e, index, rank, "the block index")
        text = "tile.store %s, %s[%s]%s" % (v.ssa, buf.ssa, ", ".join(x.ssa for x in idx),
                                             self.addressing(e, buf, offset, bounds))
        if combine is not None:
            if combine != "add":
                raise self.error(e, "combine is 'add' or None, not %r" % (combine,))
            text += " combine add"
        self.builder.line("%s : %s -> %s" % (text, v.type.mlir(), buf.type.mlir()), e)

    def op_dot(self, e, a, b, acc=None):
        a = self.tile_arg(e, a, "tiletag.dot's first operand")
        b = self.tile_arg(e, b, "tiletag.dot's second operand")
        if len(a.type.shape) != 2 or len(b.type.shape) != 2:
            raise self.error(e, "tiletag.dot multiplies 2-d tiles, not %s and %s" % (
                a.type.mlir(), b.type.mlir()))
        (m, k), (k2, n) = a.type.shape, b.type.shape
        if k != k2:
            raise self.error(e, "tiletag.dot of %s and %s: the contracted "
                                "extents differ (%d and %d)" % (a.type.mlir(),
                                                                b.type.mlir(), k, k2))
        if not same_type(a.type.elem, b.type.elem):
            raise self.error(e, "tiletag.dot of %s and %s: the element types "
                                "differ" % (a.type.mlir(), b.type.mlir()))
        rtype = TileType((m, n), lang.f32)
        if acc is None:
            acc = self.tile_constant(0.0, rtype, e)
        acc = self.tile_arg(e, acc, "the accumulator")
        if acc.type != rtype:
            raise self.error(e, "tiletag.dot of %s and %s accumulates into %s, "
                                "not %s" % (a.type.mlir(), b.type.mlir(), rtype.mlir(),
                                            acc.type.mlir()))
        return self.builder.op("tile.dot %s, %s, %s : %s, %s -> %s" % (
            a.ssa, b.ssa, acc.ssa, a.type.mlir(), b.type.mlir(), rtype.mlir()), rtype, e)

    def reduce(self, e, kind, x, axis):
        x = self.tile_arg(e, x, "the reduced value")
        if not isinstance(axis, int) or not 0 <= axis < len(x.type.shape):
            raise self.error(e, "axis must be a Python int below the tile's rank %d, "
                                "not %r" % (len(x.type.shape), axis))
        shape = x.type.shape[:axis] + x.type.shape[axis + 1:]
        if not shape:
            raise self.error(e, "reducing a 1-d tile to a scalar is not supported")
        rtype = TileType(shape, x.type.elem)
        return self.builder.op("tile.reduce %s %s axis %d : %s -> %s" % (
            kind, x.ssa, axis, x.type.mlir(), rtype.mlir()), rtype, e)

    def op_sum(self, e, x, axis):
        return self.reduce(e, "sum", x, axis)

    def op_max(self, e, x, axis):
        return self.reduce(e, "max", x, axis)

    def op_min(self, e, x, axis):
        return self.reduce(e, "min", x, axis)

    def op_broadcast(self, e, x, shape, dims):
        x = self.tile_arg(e, x, "the broadcast value")
        shape = self.shape_arg(e, shape)
        if isinstance(dims, int):
            dims = (dims,)
        dims = tuple(dims) if isinstance(dims, (tuple, list)) else None
        if dims is None or not all(isinstance(d, int) for d in dims) or \
                sorted(set(dims)) != list(dims) or \
                any(not 0 <= d < len(shape) for d in dims):
            raise self.error(e, "dims are the new dimensions, increasing Python ints "
                                "below the result's rank")
        kept = tuple(s for i, s in enumerate(shape) if i not in dims)
        if kept != x.type.shape:
            raise self.error(e, "broadcasting a %s tile to %s along %s: the other "
                                "dimensions must be the input's" % (
                                    x.type.mlir(), "x".join(map(str, shape)), list(dims)))
        rtype = TileType(shape, x.type.elem)
        return self.builder.op("tile.broadcast %s dims [%s] : %s -> %s" % (
            x.ssa, ", ".join(map(str, dims)), x.type.mlir(), rtype.mlir()), rtype, e)

    def op_iota(self, e, shape, dim):
        shape = self.shape_arg(e, shape)
        if not isinstance(dim, int) or not 0 <= dim < len(shape):
            raise self.error(e, "iota's dim is below the tile's rank")
        rtype = TileType(shape, INDEX)
        return self.builder.op("tile.iota dim %d : %s" % (dim, rtype.mlir()), rtype, e)

    def op_transpose(self, e, x, perm):
        x = self.tile_arg(e, x, "the transposed value")
        if not isinstance(perm, (tuple, list)) or \
                not all(isinstance(p, int) and not isinstance(p, bool) for p in perm) or \
                sorted(perm) != list(range(len(x.type.shape))):
            raise self.error(e, "perm is a permutation of 0..%d" % (len(x.type.shape) - 1))
        rtype = TileType([x.type.shape[p] for p in perm], x.type.elem)
        return self.builder.op("tile.transpose %s perm [%s] : %s -> %s" % (
            x.ssa, ", ".join(map(str, perm)), x.type.mlir(), rtype.mlir()), rtype, e)

    def op_zeros(self, e, shape, dtype=lang.f32):
        return self.op_full(e, shape, 0, dtype)

    def op_full(self, e, shape, value, dtype=lang.f32):
        shape = self.shape_arg(e, shape)
        dtype = self.dtype_arg(e, dtype)
        if isinstance(value, Value):
            raise self.error(e, "tiletag.full takes a Python number; use "
                                "tiletag.splat for an IR value")
        return self.tile_constant(value, TileType(shape, dtype), e)

    def op_splat(self, e, value, shape):
        shape = self.shape_arg(e, shape)
        if not isinstance(value, Value) or isinstance(value.type, (TileType, BufferType)):
            raise self.error(e, "tiletag.splat takes a scalar IR value, not %s" %
                             self.describe(value))
        rtype = TileType(shape, value.type)
        return self.builder.op("tensor.splat %s : %s" % (value.ssa, rtype.mlir()),
                               rtype, e, "splat")

    def math(self, name, x, e):
        if not isinstance(x, Value) or isinstance(x, BufferValue) or \
                not elem_of(x.type).is_float:
            raise self.error(e, "math.%s takes a float value or tile, not %s" % (
                name, self.describe(x)))
        return self.builder.op("math.%s %s : %s" % (name, x.ssa, mlir_type(x.type)),
                               x.type, e)

    def op_exp(self, e, x):
        return self.math("exp", x, e)

    def op_log(self, e, x):
        return self.math("log", x, e)

    def op_sqrt(self, e, x):
        return self.math("sqrt", x, e)

    def op_rsqrt(self, e, x):
        return self.math("rsqrt", x, e)

    def op_abs(self, e, x):
        return self.math("absf", x, e)

    def op_tanh(self, e, x):
        return self.math("tanh", x, e)

    def op_maximum(self, e, a, b):
        return self.extremum(True, a, b, e, "tiletag.maximum")

    def op_minimum(self, e, a, b):
        return self.extremum(False, a, b, e, "tiletag.minimum")

    def op_where(self, e, cond, a, b):
        return self.select(cond, a, b, e)

    def op_cast(self, e, x, dtype):
        dtype = self.dtype_arg(e, dtype)
        if not isinstance(x, Value) or isinstance(x, BufferValue):
            if isinstance(x, (int, float, bool)):
                return self.scalar_constant(x, dtype, e)
            raise self.error(e, "tiletag.cast of %s" % self.describe(x))
        src = elem_of(x.type)
        if src.name == dtype.name:
            return x
        rtype = TileType(x.type.shape, dtype) if isinstance(x.type, TileType) else dtype

        def op(name, v, t):
            return self.builder.op("arith.%s %s : %s to %s" % (
                name, v.ssa, mlir_type(v.type), mlir_type(t)), t, e)

        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i1": 1, "i8": 8,
                 "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8,
                 "i16": 16, "i32": 32, "i64": 64, "index": 64}
        if src.is_float and dtype.is_float:
            if width[src.name] == width[dtype.name]:
                raise self.error(e, "cast between %s and %s through f32" % (
                    src.name, dtype.name))
            return op("truncf" if width[dtype.name] < width[src.name] else "extf", x, rtype)
        if src.name == "index":
            if dtype.is_float:
                # An index is a non-negative position or size: as unsigned.
                via = TileType(x.type.shape, lang.i64) if isinstance(x.type, TileType) \
                    else lang.i64
                return op("uitofp", op("index_cast", x, via), rtype)
            return op("index_cast", x, rtype)
        if dtype.name == "index":
            if src.is_float:
                raise self.error(e, "cast a float to an integer type first")
            return op("index_cast", x, rtype)
        if src.is_float:
            return op("fptosi", x, rtype)
        if dtype.is_float:
            return op("uitofp" if src.name == "i1" else "sitofp", x, rtype)
        if width[dtype.name] > width[src.name]:
            return op("extui" if src.name == "i1" else "extsi", x, rtype)
        return op("trunci", x, rtype)

    def op_cdiv(self, e, a, b):
        if not isinstance(a, Value) and not isinstance(b, Value):
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)) \
                    or b == 0:
                raise self.error(e, "tiletag.cdiv of %r and %r: index values or "
                                    "Python ints, the divisor not zero" % (a, b))
            return lang.cdiv(a, b)
        a, b = self.as_index(a, e), self.as_index(b, e)
        return self.builder.op("arith.ceildivui %s, %s : index" % (a.ssa, b.ssa), INDEX, e)

    def tag_fields(self, e, fields):
        return ", ".join(self.as_index(f, e).ssa for f in fields)

    def tag_name(self, e, name):
        if not isinstance(name, str) or not name.isidentifier():
            raise self.error(e, "a tag's name is a Python identifier string, not %r"
                             % (name,))
        return name

    def op_attach(self, e, x, name, *fields):
        x = self.tile_arg(e, x, "the tagged value")
        return self.builder.op('tag.attach %s as "%s"(%s) : %s' % (
            x.ssa, self.tag_name(e, name), self.tag_fields(e, fields), x.type.mlir()),
            x.type, e)

    def op_field(self, e, x, name, index):
        x = self.tile_arg(e, x, "the tagged value")
        if not isinstance(index, int):
            raise self.error(e, "a field number is a Python int")
        return self.builder.op('tag.field %s["%s", %d] : %s' % (
            x.ssa, self.tag_name(e, name), index, x.type.mlir()), INDEX, e, "field")

    def op_assert_carries(self, e, x, name, *args):
        if not args or not isinstance(args[-1], str):
            raise self.error(e, "tiletag.assert_carries(value, name, fields..., "
                                "message): the message string comes last")
        x = self.tile_arg(e, x, "the value")
        text = args[-1].replace("\\", "\\\\").replace('"', '\\"')
        self.builder.line('tag.assert_carries %s, "%s"(%s), "%s" : %s' % (
            x.ssa, self.tag_name(e, name), self.tag_fields(e, args[:-1]), text,
            x.type.mlir()), e)


def _hashable(x):
    try:
        hash(x)
        return True
    except TypeError:
        return False
