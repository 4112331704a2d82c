"""Renders a JSON Schema (read from stdin) the way BAML shows an output type to a model:
the schema becomes BAML types through its TypeBuilder (objects as classes, string enums
as enums with their value descriptions, unions, lists, maps, optional members), and the
prompt of a function returning it is rendered without calling any model. Prints the
`ctx.output_format` text. Used by compare.sh."""
import json, sys, os
os.environ.setdefault("OPENAI_API_KEY", "x")
from baml_client import b
from baml_client.type_builder import TypeBuilder

schema = json.load(sys.stdin)
defs = schema.get("$defs", {})
tb = TypeBuilder()
made = {}

def clean(name):
    return "".join(ch for ch in name if ch.isalnum()) or "T"

def resolve(node):
    while isinstance(node, dict) and "$ref" in node and len(node) == 1:
        node = defs[node["$ref"].split("/")[-1]]
    return node

counter = [0]
def fresh(base):
    counter[0] += 1
    return f"{clean(base)}{counter[0]}"

def ty(node, hint="T"):
    if isinstance(node, dict) and "$ref" in node:
        name = node["$ref"].split("/")[-1]
        target = defs[name]
        if name not in made:
            made[name] = None
            made[name] = build(target, clean(name))
        return made[name]
    return build(node, hint)

def build(node, hint):
    if node is True or node == {}:
        return tb.string()  # any: BAML has no any; closest
    if "const" in node:
        v = node["const"]
        return tb.literal_string(v) if isinstance(v, str) else tb.literal_int(v) if isinstance(v, int) else tb.literal_bool(v)
    if "enum" in node:
        values = [v for v in node["enum"] if v is not None]
        e = tb.add_enum(fresh(hint))
        for v in values:
            e.add_value(str(v))
        t = e.type()
        return t.optional() if None in node["enum"] else t
    for key in ("oneOf", "anyOf"):
        if key in node:
            branches = node[key]
            nulls = [x for x in branches if resolve(x).get("type") == "null"]
            rest = [x for x in branches if resolve(x).get("type") != "null"]
            # Described string branches (doc-commented unit variants) form an enum.
            if all("const" in resolve(x) and isinstance(resolve(x)["const"], str) for x in rest):
                e = tb.add_enum(fresh(hint))
                for x in rest:
                    v = e.add_value(resolve(x)["const"])
                    if resolve(x).get("description"):
                        v.description(resolve(x)["description"])
                t = e.type()
            else:
                parts = [ty(x, hint) for x in rest]
                t = parts[0] if len(parts) == 1 else tb.union(parts)
            return t.optional() if nulls else t
    types = node.get("type")
    if isinstance(types, list):
        nullable = "null" in types
        rest = [t for t in types if t != "null"]
        inner = dict(node); inner["type"] = rest[0] if len(rest) == 1 else rest
        t = build(inner, hint)
        return t.optional() if nullable else t
    if types == "string": return tb.string()
    if types == "integer": return tb.int()
    if types == "number": return tb.float()
    if types == "boolean": return tb.bool()
    if types == "null": return tb.null()
    if types == "array":
        return ty(node.get("items", {}), hint).list()
    if types == "object" or "properties" in node:
        props = node.get("properties", {})
        if not props:
            extra = node.get("additionalProperties", True)
            value = ty(extra, hint) if isinstance(extra, dict) else tb.string()
            return tb.map(tb.string(), value)
        c = tb.add_class(fresh(hint))
        required = set(node.get("required", []))
        for name, member in props.items():
            t = ty(member, name)
            if name not in required:
                t = t.optional()
            p = c.add_property(name, t)
            d = member.get("description") if isinstance(member, dict) else None
            if d: p.description(d)
        return c.type()
    return tb.string()

root = resolve(schema)
# The root: its members become Dyn's.
def add_root(node):
    if "properties" in node and not any(k in node for k in ("oneOf", "anyOf")):
        required = set(node.get("required", []))
        for name, member in node["properties"].items():
            t = ty(member, name)
            if name not in required:
                t = t.optional()
            p = tb.Dyn.add_property(name, t)
            if member.get("description"): p.description(member["description"])
    else:
        # A root union: BAML has no class that is a union with members of its own, so
        # the union is one property and the members beside it (a flattened enum's
        # shared fields) are the others, keeping their text in the count.
        t = build(node, "Root")
        tb.Dyn.add_property("value", t)
        required = set(node.get("required", []))
        for name, member in node.get("properties", {}).items():
            t = ty(member, name)
            if name not in required:
                t = t.optional()
            p = tb.Dyn.add_property(name, t)
            if member.get("description"): p.description(member["description"])
add_root(root)
req = b.request.Render("INPUT", {"tb": tb})
body = req.body.json()
text = body["messages"][0]["content"]
text = text if isinstance(text, str) else "".join(part.get("text", "") for part in text)
print(text.split("INPUT", 1)[1].strip())
