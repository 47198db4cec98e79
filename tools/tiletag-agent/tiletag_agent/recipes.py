"""Recipes: transform-script templates with typed parameters, read from
TOML files (format: docs/Agent.md). A malformed recipe is an error that
names its file and line."""

import os
import re
import string
import tomllib

PARAM_TYPES = ("int", "bool", "choice")
REASONS = ("apply", "verify:wait", "verify:slot", "verify:schedule",
           "verify:tags", "verify:contract", "verify:unknown", "oracle",
           "lower", "ptxas", "estimate", "measure", "shared-memory", "registers")


class RecipeError(Exception):
    pass


def _line_of(text, key):
    """1-based line of `key` in text: `key` is a key (its `key =` or its
    table header), or a list of those and literal strings, each searched for
    after the previous one (e.g. ["factor", "default"])."""
    pos = 0
    for anchor in key if isinstance(key, list) else [key]:
        pattern = re.compile(r"^\s*(\[+[\w.\"-]*\b%s\b[\w.\"-]*\]+|%s\s*=)"
                             % (re.escape(anchor), re.escape(anchor)), re.M)
        m = pattern.search(text, pos)
        at = m.start(1) if m else text.find(anchor, pos)
        if at < 0:
            break
        pos = at
    return text.count("\n", 0, pos) + 1


class Param:
    def __init__(self, name, spec, where):
        self.name = name
        self.type = spec.get("type")
        if self.type not in PARAM_TYPES:
            where(name, "parameter '%s' has type %r; expected one of %s"
                  % (name, self.type, ", ".join(PARAM_TYPES)))
        if self.type == "bool":
            self.values = [False, True]
        elif "values" in spec:
            self.values = list(spec["values"])
        elif "range" in spec and self.type == "int":
            lo, hi = spec["range"]
            step = spec.get("step", 1)
            if not (isinstance(lo, int) and isinstance(hi, int) and lo <= hi
                    and isinstance(step, int) and step > 0):
                where(name, "parameter '%s': range needs two integers lo <= hi "
                      "and a positive step" % name)
            self.values = list(range(lo, hi + 1, step))
        else:
            where(name, "parameter '%s' needs 'values'%s"
                  % (name, " or 'range'" if self.type == "int" else ""))
        if not self.values:
            where(name, "parameter '%s' has no values" % name)
        for v in self.values:
            ok = {"int": lambda x: isinstance(x, int) and not isinstance(x, bool),
                  "bool": lambda x: isinstance(x, bool),
                  "choice": lambda x: isinstance(x, str)}[self.type](v)
            if not ok:
                where(name, "parameter '%s': value %r is not of type %s"
                      % (name, v, self.type))
        self.default = spec.get("default", self.values[0])
        if self.default not in self.values:
            where([name, "default"], "parameter '%s': default %r is not among its values %r"
                  % (name, self.default, self.values))

    def neighbours(self, value):
        """Values next to `value` in the parameter's order."""
        i = self.values.index(value)
        return [self.values[j] for j in (i - 1, i + 1) if 0 <= j < len(self.values)]


class Recipe:
    def __init__(self, path, text, data):
        self.path = path

        def where(key, message):
            raise RecipeError("%s:%d: %s" % (path, _line_of(text, key), message))

        for key in ("name", "rationale", "template"):
            if not isinstance(data.get(key), str) or not data.get(key).strip():
                where(key, "recipe needs a non-empty string '%s'" % key)
        targets = data.get("target")
        if isinstance(targets, str):
            targets = [targets]
        if not isinstance(targets, list) or not targets or not all(
                isinstance(t, str) and t.strip() for t in targets):
            where("target", "recipe needs 'target': a chip, or a list of chips")
        known = {"name", "target", "rationale", "template", "requires",
                 "params", "repair"}
        for key in data:
            if key not in known:
                where(key, "unknown key '%s' (expected %s)"
                      % (key, ", ".join(sorted(known))))
        self.name = data["name"]
        self.targets = targets
        self.rationale = data["rationale"].strip()
        self.template = data["template"]
        req = data.get("requires", {})
        if not isinstance(req, dict):
            where("requires", "'requires' must be a table")
        self.requires = {
            "workloads": req.get("workloads", []),
            "ops": req.get("ops", []),
            "without_ops": req.get("without_ops", []),
            "grid_rank": req.get("grid_rank"),
        }
        for key in req:
            if key not in self.requires:
                where(key, "unknown precondition '%s' (expected %s)"
                      % (key, ", ".join(sorted(self.requires))))
        self.params = {}
        for name, spec in data.get("params", {}).items():
            if not isinstance(spec, dict):
                where(name, "parameter '%s' must be a table" % name)
            self.params[name] = Param(name, spec, where)
        used = set()
        try:
            for m in string.Template.pattern.finditer(self.template):
                if m.group("invalid") is not None:
                    raise ValueError("a '$' that names nothing")
                ident = m.group("named") or m.group("braced")
                if ident:
                    used.add(ident)
        except ValueError as e:
            where("template", "template: %s" % e)
        for ident in sorted(used - set(self.params) - {"kernel"}):
            where(["template", "${%s}" % ident],
                  "template uses ${%s}, which is not a parameter" % ident)
        for name in sorted(set(self.params) - used):
            where(name, "parameter '%s' is not used by the template" % name)
        self.repair = {}
        for reason, change in data.get("repair", {}).items():
            if reason not in REASONS:
                where(reason, "repair for unknown reason '%s' (reasons: %s)"
                      % (reason, ", ".join(REASONS)))
            if not isinstance(change, dict):
                where(reason, "repair '%s' must map parameters to steps" % reason)
            for param, step in change.items():
                if param not in self.params or not isinstance(step, int) or \
                        self.params[param].type != "int":
                    where(reason, "repair '%s': '%s' must be an int parameter "
                          "with an integer step" % (reason, param))
            self.repair[reason] = change

    def applies(self, facts, target):
        """None if the recipe applies to a kernel with `facts`, else why not."""
        if target not in self.targets:
            return "serves %s, not %s" % (", ".join(self.targets), target)
        r = self.requires
        if r["workloads"] and facts["workload"] not in r["workloads"]:
            return "kernel's workload '%s' is not one of %s" % (facts["workload"], r["workloads"])
        for op in r["ops"]:
            if op not in facts["ops"]:
                return "kernel has no %s" % op
        for op in r["without_ops"]:
            if op in facts["ops"]:
                return "kernel already has %s" % op
        if r["grid_rank"] is not None and facts["grid_rank"] != r["grid_rank"]:
            return "grid rank %d, not %d" % (facts["grid_rank"], r["grid_rank"])
        return None

    def defaults(self):
        return {n: p.default for n, p in self.params.items()}

    def render(self, params, kernel_name):
        """The whole transform script for `params` on @kernel_name."""
        values = {k: (str(v).lower() if isinstance(v, bool) else str(v))
                  for k, v in params.items()}
        values["kernel"] = "%kernel"
        body = string.Template(self.template).substitute(values)
        body = "\n".join("    " + line if line.strip() else ""
                         for line in body.strip("\n").splitlines())
        return SCRIPT % {"kernel": kernel_name, "body": body, "recipe": self.name,
                         "params": ", ".join("%s=%s" % kv for kv in sorted(values.items())
                                             if kv[0] != "kernel")}


SCRIPT = """// Recipe %(recipe)s: %(params)s
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%%root: !transform.any_op {transform.readonly}) {
    %%kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "%(kernel)s"} in %%root
        : (!transform.any_op) -> !transform.any_op
%(body)s
    transform.yield
  }
}
"""


def load_file(path):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"at line (\d+)", str(e))
        raise RecipeError("%s:%s: %s" % (path, m.group(1) if m else 1, e))
    try:
        return Recipe(path, text, data)
    except (TypeError, ValueError, AttributeError, KeyError) as e:
        # A value of the wrong shape that no check above names.
        raise RecipeError("%s:1: malformed recipe (%s: %s)" % (path, type(e).__name__, e))


def load(paths):
    """Recipes from files and directories (every *.toml in them), sorted by
    name; two recipes with one name are an error."""
    recipes = {}
    for path in paths:
        files = ([os.path.join(path, f) for f in sorted(os.listdir(path))
                  if f.endswith(".toml")] if os.path.isdir(path) else [path])
        for f in files:
            r = load_file(f)
            if r.name in recipes:
                raise RecipeError("%s:%d: recipe '%s' is also defined in %s"
                                  % (f, 1, r.name, recipes[r.name].path))
            recipes[r.name] = r
    return [recipes[n] for n in sorted(recipes)]
