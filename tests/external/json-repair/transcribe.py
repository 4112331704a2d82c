#!/usr/bin/env python3
"""Transcribes json_repair's test assertions into cases.jsonl.

Usage: python3 transcribe.py JSON_REPAIR_CHECKOUT > cases.jsonl

Reads every tests/*.py file of a json_repair checkout and keeps each assertion of
the form `assert repair_json(INPUT, ...) == EXPECTED` (or `loads(INPUT) == EXPECTED`)
whose input and expected value are literals, or names bound to literals in the same
test function, in a `pytest.mark.parametrize` row, or at module level. Nothing is
executed: the files are read with `ast` and the literals evaluated by hand.

Kept only when the call uses no option that changes what is being tested: calls with
`schema`, `strict`, `stream_stable`, `json_fd` or any other option besides
`return_objects`, `skip_json_loads` and `ensure_ascii` are left out (they test modes
this project does not have). `skip_json_loads` only skips json_repair's fast path, so
both settings expect the same value. `logging=True` is kept in the form
`value, logs = repair_json(...)` followed by `assert value == EXPECTED` (the log does
not change the value); so is `value = repair_json(...)`.

Each line of the output is {"id", "input", "expected", "source"}:
- `expected` is JSON text: json_repair's output string, or, for `return_objects=True`
  and `loads`, the expected Python value written with `json.dumps`. An empty string
  means json_repair returns nothing (its result for text with no JSON in it, which it
  also gives for the empty string value `""`).
- `source` is `tests/FILE.py:LINE`, the line of the assertion, or of the parametrize
  row for parametrized tests.
- `id` is `source`, followed by `#2`, `#3`, ... when one line yields several cases.

Cases with the same input and the same expected value are written once. Whatever is
skipped is counted on standard error.
"""

import ast
import json
import sys
from collections import Counter
from pathlib import Path

ALLOWED_OPTIONS = {"return_objects", "skip_json_loads", "ensure_ascii"}
REPAIR_FUNCTIONS = {"repair_json", "loads"}
# Test helpers that assert repair_json(raw, return_objects=True) == expected.
OBJECT_HELPERS = {"_assert_object_repairs"}


class Unknown(Exception):
    """An expression that is not a literal we can evaluate."""


def evaluate(node, env):
    """Evaluates a literal expression, looking names up in `env`."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise Unknown(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [evaluate(e, env) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Unknown("dict unpacking")
        return {evaluate(k, env): evaluate(v, env) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -evaluate(node.operand, env)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
        left, right = evaluate(node.left, env), evaluate(node.right, env)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(left, (str, list)) and isinstance(right, int) and right < 10_000:
            return left * right
        raise Unknown("multiplication")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(value.value)
            elif value.conversion == -1 and value.format_spec is None:
                inner = evaluate(value.value, env)
                if not isinstance(inner, (str, int)) or isinstance(inner, bool):
                    raise Unknown("f-string value")
                parts.append(str(inner))
            else:
                raise Unknown("f-string format")
        return "".join(parts)
    raise Unknown(type(node).__name__)


def reject_constant(name):
    """Python's json reads NaN and Infinity; JSON has no such values."""
    raise ValueError(name)


def call_name(node):
    """The name a call is made to (`f` for `f(...)` and `m.f(...)`), or None."""
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def assigned_names(nodes):
    """Every plain name assigned anywhere inside `nodes`."""
    names = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
    return names


class Collector:
    def __init__(self, relative):
        self.relative = relative
        self.cases = []
        self.skipped = Counter()
        # Names bound to a repair call's result: name -> (input, return_objects, line).
        self.results = {}

    def repair_call(self, call, env, line, logged=False):
        """The case a `repair_json(...)` call compared with an expected value
        describes, as (input, return_objects, line), or None. `logged` is true for
        `value, logs = repair_json(..., logging=True)`, whose value is the same."""
        name = call_name(call)
        if name not in REPAIR_FUNCTIONS or not call.args or len(call.args) > 1:
            self.skipped["call shape"] += 1
            return None
        options = {}
        for keyword in call.keywords:
            if keyword.arg == "logging" and logged:
                continue
            if keyword.arg not in ALLOWED_OPTIONS:
                self.skipped[f"option {keyword.arg}"] += 1
                return None
            if keyword.arg == "return_objects":
                try:
                    options["return_objects"] = evaluate(keyword.value, env)
                except Unknown:
                    self.skipped["unknown return_objects"] += 1
                    return None
        try:
            text = evaluate(call.args[0], env)
        except Unknown:
            self.skipped["input not a literal"] += 1
            return None
        if not isinstance(text, str):
            self.skipped["input not a string"] += 1
            return None
        objects = name == "loads" or bool(options.get("return_objects", False))
        return text, objects, line

    def add(self, text, objects, expected_node, env, line):
        try:
            expected = evaluate(expected_node, env)
        except Unknown:
            self.skipped["expected not a literal"] += 1
            return
        if objects:
            try:
                expected = json.dumps(expected, ensure_ascii=False, allow_nan=False)
            except (TypeError, ValueError):
                self.skipped["expected not JSON"] += 1
                return
            if expected == '""':
                # json_repair's "nothing found" and the empty string are one value.
                expected = ""
        else:
            if not isinstance(expected, str):
                self.skipped["expected not a string"] += 1
                return
            if expected != "":
                try:
                    json.loads(expected, parse_constant=reject_constant)
                except ValueError:
                    self.skipped["expected not JSON"] += 1
                    return
        self.cases.append(
            {"input": text, "expected": expected, "source": f"tests/{self.relative}:{line}"}
        )

    def statements(self, body, env, row_line):
        """Walks a function body in order, binding literal assignments."""
        for stmt in body:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    for name in assigned_names([target]):
                        env.pop(name, None)
                        self.results.pop(name, None)
                result = self.bound_result(stmt, env, row_line)
                if result is not None:
                    self.results[result[0]] = result[1]
                    continue
                if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                    try:
                        env[stmt.targets[0].id] = evaluate(stmt.value, env)
                    except Unknown:
                        pass
            elif isinstance(stmt, ast.Assert):
                self.assertion(stmt, env, row_line)
            elif isinstance(stmt, ast.Expr) and call_name(stmt.value) in OBJECT_HELPERS:
                call = stmt.value
                if len(call.args) == 2:
                    line = row_line or stmt.lineno
                    try:
                        text = evaluate(call.args[0], env)
                    except Unknown:
                        self.skipped["input not a literal"] += 1
                        continue
                    if isinstance(text, str):
                        self.add(text, True, call.args[1], env, line)
            elif isinstance(stmt, (ast.For, ast.While, ast.With)):
                inner = dict(env)
                if isinstance(stmt, ast.For):
                    for name in assigned_names([stmt.target]):
                        inner.pop(name, None)
                self.statements(stmt.body, inner, row_line)
                for name in assigned_names(stmt.body):
                    env.pop(name, None)
            else:
                # Branches and anything else: their assignments make names unknown.
                for name in assigned_names([stmt]):
                    env.pop(name, None)

    def bound_result(self, stmt, env, row_line):
        """For `name = repair_json(...)` or `name, logs = repair_json(..., logging=True)`,
        the name and the call's case."""
        if len(stmt.targets) != 1 or call_name(stmt.value) not in REPAIR_FUNCTIONS:
            return None
        target = stmt.targets[0]
        logged = any(k.arg == "logging" for k in stmt.value.keywords)
        if logged and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[0]
        elif logged:
            return None
        if not isinstance(target, ast.Name):
            return None
        found = self.repair_call(stmt.value, env, row_line or stmt.lineno, logged)
        return None if found is None else (target.id, found)

    def assertion(self, stmt, env, row_line):
        test = stmt.test
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)
        ):
            return
        left, right = test.left, test.comparators[0]
        if isinstance(left, ast.Name) and left.id in self.results:
            text, objects, line = self.results[left.id]
            self.add(text, objects, right, env, line)
            return
        if call_name(right) in REPAIR_FUNCTIONS and call_name(left) not in REPAIR_FUNCTIONS:
            left, right = right, left
        if call_name(left) not in REPAIR_FUNCTIONS:
            return
        if call_name(right) in REPAIR_FUNCTIONS:
            self.skipped["compares two calls"] += 1
            return
        found = self.repair_call(left, env, row_line or stmt.lineno)
        if found is not None:
            text, objects, line = found
            self.add(text, objects, right, env, line)

    def function(self, func, module_env):
        rows = [({}, None)]
        for decorator in func.decorator_list:
            if call_name(decorator) != "parametrize":
                continue
            try:
                names = evaluate(decorator.args[0], module_env)
            except (Unknown, IndexError):
                self.skipped["parametrize names"] += 1
                return
            if isinstance(names, str):
                names = [n.strip() for n in names.split(",")]
            values = decorator.args[1] if len(decorator.args) > 1 else None
            if not isinstance(values, (ast.List, ast.Tuple)):
                self.skipped["parametrize values"] += 1
                return
            new_rows = []
            for row in values.elts:
                if call_name(row) == "param":
                    row_values = ast.Tuple(elts=row.args, ctx=ast.Load())
                else:
                    row_values = row
                try:
                    value = evaluate(row_values, module_env)
                except Unknown:
                    self.skipped["parametrize row"] += 1
                    continue
                bound = dict(zip(names, value)) if len(names) > 1 else {names[0]: value}
                for env, line in rows:
                    new_rows.append(({**env, **bound}, line or row.lineno))
            rows = new_rows
        for bound, line in rows:
            self.results = {}
            self.statements(func.body, {**module_env, **bound}, line)


def module_constants(tree):
    env = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                try:
                    env[target.id] = evaluate(stmt.value, env)
                except Unknown:
                    pass
    return env


def main():
    root = Path(sys.argv[1])
    cases, skipped = [], Counter()
    for path in sorted((root / "tests").glob("*.py")):
        relative = path.name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        collector = Collector(relative)
        constants = module_constants(tree)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                collector.function(node, constants)
            elif isinstance(node, ast.ClassDef):
                for inner in node.body:
                    if isinstance(inner, ast.FunctionDef) and inner.name.startswith("test"):
                        collector.function(inner, constants)
        cases.extend(collector.cases)
        skipped.update(collector.skipped)

    seen, per_source, out = set(), Counter(), []
    for case in cases:
        expected = case["expected"]
        canonical = json.dumps(json.loads(expected), sort_keys=True) if expected else ""
        key = (case["input"], canonical)
        if key in seen:
            skipped["duplicate"] += 1
            continue
        seen.add(key)
        per_source[case["source"]] += 1
        n = per_source[case["source"]]
        case_id = case["source"] if n == 1 else f'{case["source"]}#{n}'
        out.append({"id": case_id, **case})
    for case in out:
        print(json.dumps(case, ensure_ascii=False))
    print(f"{len(out)} cases", file=sys.stderr)
    for reason, count in sorted(skipped.items()):
        print(f"skipped ({reason}): {count}", file=sys.stderr)


if __name__ == "__main__":
    main()
