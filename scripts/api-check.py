#!/usr/bin/env python3
"""The public API of each published library crate, listed one item a line, compared with the
listing of the last release (api/<crate>.txt), so that the API breaks only on purpose.

    scripts/api-check.py            # compare; fails on a breaking change the CHANGELOG does not list
    scripts/api-check.py --bless    # write the listings anew (at a release, or once listed)

The listing comes from rustdoc's JSON output (`--output-format json`, unstable: RUSTC_BOOTSTRAP=1
lets the stable toolchain's rustdoc write it). A breaking change is:
- a line of the baseline that is gone: an item removed or moved, a signature changed, a struct or
  enum made `#[non_exhaustive]`, a trait impl removed;
- a field added to a struct that could be built by struct literal (every field public, not
  `#[non_exhaustive]`), a variant added to an exhaustive enum, a required method added to a trait.
Each must be named in CHANGELOG.md's `## Unreleased` section, under a `###` heading that says
"Breaking": its path (`skyl::provider::Request`), or its last two segments (`Request::caching`).
An item moved to another path is named by a line of that section with both paths,
`skyl::Image` → `skyl::content::Image` (or `->`): the baseline is read with the new path, so the
item, its methods and every signature that names it compare as they are, and the move itself is
the one breaking change.
`--bless` refuses to record a breaking change that is not named there, so the baseline moves only
with the CHANGELOG; at a release, bless before the Unreleased section becomes the version's.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["skyl", "skyl-restate"]


def rustdoc_json(crate):
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    env.pop("RUSTDOCFLAGS", None)
    subprocess.run(
        ["cargo", "rustdoc", "-p", crate, "--all-features", "--quiet", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, env=env, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return json.loads((target / "doc" / (crate.replace("-", "_") + ".json")).read_text())


class Lister:
    def __init__(self, doc):
        self.doc = doc
        self.index = doc["index"]
        self.paths = doc["paths"]
        self.lines = set()
        self.visited = set()
        # Each item's public path (the shortest one it is reachable at), filled by a first walk,
        # so that a type is named as a user names it, not by the private module it is defined in.
        self.public = {}

    def item(self, id_):
        return self.index.get(str(id_))

    def path_of(self, id_, written):
        if str(id_) in self.public:
            return self.public[str(id_)]
        entry = self.paths.get(str(id_))
        if entry:
            return "::".join(entry["path"])
        return written

    # Types, rendered as Rust spells them (with the full path of each named type).
    def ty(self, t):
        if t is None:
            return "()"
        if isinstance(t, str):
            return t
        (kind, v), = t.items()
        if kind == "resolved_path":
            return self.path_of(v["id"], v["path"]) + self.args(v.get("args"))
        if kind == "primitive" or kind == "generic":
            return v
        if kind == "borrowed_ref":
            life = (v["lifetime"] + " ") if v.get("lifetime") else ""
            return "&" + life + ("mut " if v["is_mutable"] else "") + self.ty(v["type"])
        if kind == "raw_pointer":
            return "*" + ("mut " if v["is_mutable"] else "const ") + self.ty(v["type"])
        if kind == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ")"
        if kind == "slice":
            return "[" + self.ty(v) + "]"
        if kind == "array":
            return "[" + self.ty(v["type"]) + "; " + v["len"] + "]"
        if kind == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if kind == "dyn_trait":
            parts = [self.poly(p) for p in v["traits"]]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if kind == "qualified_path":
            trait = v.get("trait")
            trait_s = self.path_of(trait["id"], trait["path"]) + self.args(trait.get("args")) if trait else ""
            base = "<" + self.ty(v["self_type"]) + (" as " + trait_s if trait_s else "") + ">"
            return base + "::" + v["name"] + self.args(v.get("args"))
        if kind == "function_pointer":
            sig = v["sig"]
            return "fn(" + ", ".join(self.ty(x[1]) for x in sig["inputs"]) + ")" + self.ret(sig["output"])
        return json.dumps(t, sort_keys=True)

    def poly(self, p):
        t = p["trait"]
        return self.path_of(t["id"], t["path"]) + self.args(t.get("args"))

    def args(self, a):
        if not a:
            return ""
        (kind, v), = a.items()
        if kind == "angle_bracketed":
            parts = []
            for arg in v["args"]:
                (k, x), = arg.items() if isinstance(arg, dict) else (("raw", arg),)
                if k == "type":
                    parts.append(self.ty(x))
                elif k == "lifetime":
                    parts.append(x)
                elif k == "const":
                    parts.append(x.get("expr", "_"))
                else:
                    parts.append(str(x))
            for c in v.get("constraints", []):
                binding = c.get("binding", {})
                if "equality" in binding:
                    eq = binding["equality"]
                    parts.append(c["name"] + " = " + (self.ty(eq["type"]) if "type" in eq else str(eq)))
                else:
                    parts.append(c["name"] + ": " + " + ".join(self.bound(b) for b in binding.get("constraint", [])))
            return "<" + ", ".join(parts) + ">" if parts else ""
        if kind == "parenthesized":
            return "(" + ", ".join(self.ty(x) for x in v["inputs"]) + ")" + self.ret(v.get("output"))
        return ""

    def ret(self, out):
        return " -> " + self.ty(out) if out is not None else ""

    def bound(self, b):
        (kind, v), = b.items()
        if kind == "trait_bound":
            modifier = "?" if v.get("modifier") == "maybe" else ""
            return modifier + self.path_of(v["trait"]["id"], v["trait"]["path"]) + self.args(v["trait"].get("args"))
        if kind == "outlives":
            return v
        return json.dumps(b, sort_keys=True)

    def generics(self, g):
        params = []
        for p in g["params"]:
            (kind, v), = p["kind"].items()
            if kind == "type":
                if v.get("is_synthetic"):
                    continue
                bounds = " + ".join(self.bound(b) for b in v["bounds"])
                params.append(p["name"] + (": " + bounds if bounds else ""))
            elif kind == "lifetime":
                params.append(p["name"])
            else:
                params.append("const " + p["name"] + ": " + self.ty(v["type"]))
        where = []
        for w in g["where_predicates"]:
            (kind, v), = w.items()
            if kind == "bound_predicate":
                where.append(self.ty(v["type"]) + ": " + " + ".join(self.bound(b) for b in v["bounds"]))
            else:
                where.append(json.dumps(w, sort_keys=True))
        s = "<" + ", ".join(params) + ">" if params else ""
        return s + (" where " + ", ".join(where) if where else "")

    def fn_sig(self, name, f):
        header = f["header"]
        qual = ("const " if header["is_const"] else "") + ("async " if header["is_async"] else "") + \
            ("unsafe " if header["is_unsafe"] else "")
        inputs = ", ".join(n + ": " + self.ty(t) if n != "self" else self.ty(t) for n, t in f["sig"]["inputs"])
        return qual + "fn " + name + self.generics(f["generics"]) + "(" + inputs + ")" + self.ret(f["sig"]["output"])

    @staticmethod
    def flags(item):
        return " #[non_exhaustive]" if "non_exhaustive" in [a if isinstance(a, str) else "" for a in item.get("attrs", [])] else ""

    # Items.
    def walk(self, id_, path):
        item = self.item(id_)
        if item is None or (path, id_) in self.visited:
            return
        self.visited.add((path, id_))
        known = self.public.get(str(id_))
        if getattr(self, "frozen", False):
            pass
        elif known is None or (path.count("::"), path) < (known.count("::"), known):
            self.public[str(id_)] = path
        (kind, v), = item["inner"].items()
        add = self.lines.add
        if kind == "module":
            add(f"mod {path}")
            for child in v["items"]:
                c = self.item(child)
                if c is None:
                    continue
                (ck, cv), = c["inner"].items()
                if ck == "use":
                    target = self.item(cv["id"]) if cv.get("id") is not None else None
                    if cv["is_glob"]:
                        if target and "module" in target["inner"]:
                            for grand in target["inner"]["module"]["items"]:
                                g = self.item(grand)
                                if g and g.get("name"):
                                    self.walk(grand, f"{path}::{g['name']}")
                        else:
                            add(f"use {path}::* = {cv['source']}")
                    elif target is not None:
                        self.walk(cv["id"], f"{path}::{cv['name']}")
                    else:
                        add(f"use {path}::{cv['name']} = {cv['source']}")
                elif c.get("name"):
                    self.walk(child, f"{path}::{c['name']}")
        elif kind == "struct":
            k = v["kind"]
            flags = self.flags(item)
            if "plain" in k:
                fields = k["plain"]["fields"]
                literal = not flags and not k["plain"]["has_stripped_fields"]
                add(f"struct {path}{self.generics(v['generics'])}{flags}" + (" (struct literal)" if literal else ""))
                for f in fields:
                    fi = self.item(f)
                    add(f"field {path}::{fi['name']}: {self.ty(fi['inner']['struct_field'])}")
            elif "tuple" in k:
                fields = [self.ty(self.item(f)["inner"]["struct_field"]) if f is not None and self.item(f) else "_"
                          for f in k["tuple"]]
                add(f"struct {path}{self.generics(v['generics'])}({', '.join(fields)}){flags}")
            else:
                add(f"struct {path}{self.generics(v['generics'])}{flags} (unit)")
            self.impls(v["impls"], path)
        elif kind == "enum":
            flags = self.flags(item)
            add(f"enum {path}{self.generics(v['generics'])}{flags}" + ("" if flags or v["has_stripped_variants"] else " (exhaustive)"))
            for var in v["variants"]:
                vi = self.item(var)
                vk = vi["inner"]["variant"]["kind"]
                vflags = self.flags(vi)
                if vk == "plain":
                    add(f"variant {path}::{vi['name']}{vflags}")
                elif "tuple" in vk:
                    fields = [self.ty(self.item(f)["inner"]["struct_field"]) if f is not None else "_" for f in vk["tuple"]]
                    add(f"variant {path}::{vi['name']}({', '.join(fields)}){vflags}")
                else:
                    literal = not vflags and not vk["struct"]["has_stripped_fields"]
                    add(f"variant {path}::{vi['name']} {{..}}{vflags}" + (" (struct literal)" if literal else ""))
                    for f in vk["struct"]["fields"]:
                        fi = self.item(f)
                        add(f"field {path}::{vi['name']}::{fi['name']}: {self.ty(fi['inner']['struct_field'])}")
            self.impls(v["impls"], path)
        elif kind == "union":
            add(f"union {path}")
        elif kind == "function":
            add(f"fn {path}: " + self.fn_sig(item["name"], v))
        elif kind == "trait":
            sealed = ""
            add(f"trait {path}{self.generics(v['generics'])}" +
                (": " + " + ".join(self.bound(b) for b in v["bounds"]) if v["bounds"] else "") + sealed)
            for member in v["items"]:
                m = self.item(member)
                (mk, mv), = m["inner"].items()
                if mk == "function":
                    required = "required" if not mv["has_body"] else "provided"
                    add(f"trait-fn {path}::{m['name']} ({required}): " + self.fn_sig(m["name"], mv))
                elif mk == "assoc_type":
                    add(f"trait-type {path}::{m['name']}" + (" (provided)" if mv.get("type") else " (required)"))
                elif mk == "assoc_const":
                    add(f"trait-const {path}::{m['name']}: {self.ty(mv['type'])}" + (" (provided)" if mv.get("value") else " (required)"))
        elif kind == "type_alias":
            add(f"type {path}{self.generics(v['generics'])} = {self.ty(v['type'])}")
        elif kind == "constant":
            add(f"const {path}: {self.ty(v['type'])}")
        elif kind == "static":
            add(f"static {path}: {self.ty(v['type'])}")
        elif kind in ("macro", "proc_macro"):
            add(f"macro {path}")
        else:
            add(f"{kind} {path}")

    def impls(self, ids, path):
        for impl_id in ids:
            impl = self.item(impl_id)
            if impl is None:
                continue
            v = impl["inner"]["impl"]
            if v["is_synthetic"] or v["blanket_impl"] is not None:
                continue
            if v["trait"] is not None:
                trait = self.path_of(v["trait"]["id"], v["trait"]["path"]) + self.args(v["trait"].get("args"))
                neg = "!" if v["is_negative"] else ""
                self.lines.add(f"impl {neg}{trait} for {path}")
                continue
            for member in v["items"]:
                m = self.item(member)
                if m is None or m["visibility"] != "public":
                    continue
                (mk, mv), = m["inner"].items()
                if mk == "function":
                    self.lines.add(f"fn {path}::{m['name']}: " + self.fn_sig(m["name"], mv))
                elif mk == "assoc_const":
                    self.lines.add(f"const {path}::{m['name']}: {self.ty(mv['type'])}")


def listing(crate):
    doc = rustdoc_json(crate)
    lister = Lister(doc)
    root = doc["index"][str(doc["root"])]
    lister.walk(doc["root"], root["name"])
    # Again, naming every type by the public paths the first walk found.
    public = lister.public
    lister = Lister(doc)
    lister.public = public
    lister.frozen = True
    lister.walk(doc["root"], root["name"])
    # Paths the macros expand to: not API (doc(hidden), no semver guarantees).
    return sorted(line for line in lister.lines if "::__private" not in line)


def item_path(line):
    """The item a listing line is about: `fn skyl::x::y: fn y(...)` -> `skyl::x::y`."""
    if line.startswith("impl "):
        return line
    name = line.split(" ")[1]
    return re.split(r"[<(:]$|[<(]|:$", name)[0].rstrip(":")


def breaking_changes(old, new):
    old_set, new_set = set(old), set(new)
    literal_structs = set()
    exhaustive_enums = set()
    traits = set()
    for line in old:
        if line.endswith("(struct literal)"):
            literal_structs.add(item_path(line.split(" {..}")[0]))
        if line.endswith("(exhaustive)"):
            exhaustive_enums.add(item_path(line))
        if line.startswith("trait "):
            traits.add(item_path(line))
    changes = []
    for line in old:
        if line not in new_set:
            changes.append(("gone or changed", line))
    for line in new:
        if line in old_set:
            continue
        if line.startswith("field "):
            owner = item_path(line).rsplit("::", 1)[0]
            if owner in literal_structs:
                changes.append(("field added to a struct built by literal", line))
        elif line.startswith("variant "):
            owner = item_path(line).rsplit("::", 1)[0]
            if owner in exhaustive_enums:
                changes.append(("variant added to an exhaustive enum", line))
        elif line.startswith("trait-fn ") and "(required)" in line:
            owner = item_path(line).rsplit("::", 1)[0]
            if owner in traits:
                changes.append(("required method added to a trait", line))
    return changes


def unreleased_breaking_text():
    text = (ROOT / "CHANGELOG.md").read_text()
    match = re.search(r"^## Unreleased\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not match:
        return ""
    section = match.group(1)
    parts = re.split(r"^(### .*)$", section, flags=re.M)
    return "".join(body for heading, body in zip(parts[1::2], parts[2::2]) if "breaking" in heading.lower())


MOVE = re.compile(r"`((?:skyl|skyl_restate)(?:::\w+)+)`\s*(?:→|->)\s*`((?:skyl|skyl_restate)(?:::\w+)+)`")


def moves(text):
    """The moves the Breaking section names: [(old path, new path)]."""
    return MOVE.findall(text)


def moved(lines, renames):
    """The baseline's lines with each moved path written as its new one."""
    if not renames:
        return lines
    pattern = re.compile(r"(?<![\w:])(" + "|".join(re.escape(old) for old, _ in renames) + r")(?!\w)")
    new_of = dict(renames)
    return [pattern.sub(lambda m: new_of[m.group(1)], line) for line in lines]


def named(path, text):
    if path.startswith("impl "):
        m = re.match(r"impl !?(\S+?)(<.*)? for (\S+)$", path)
        candidates = [path[5:]] + ([m.group(1).split("::")[-1] + " for " + m.group(3).split("::")[-1]] if m else [])
    else:
        segments = path.split("::")
        candidates = [path, "::".join(segments[1:]), "::".join(segments[-2:])]
    return any(f"`{c}" in text for c in candidates if c)


def main():
    bless = "--bless" in sys.argv[1:]
    failed = False
    listed = unreleased_breaking_text()
    for crate in CRATES:
        baseline = ROOT / "api" / f"{crate}.txt"
        current = listing(crate)
        old = baseline.read_text().splitlines() if baseline.exists() else []
        old = moved(old, moves(listed))
        unlisted = [(why, line) for why, line in breaking_changes(old, current)
                    if not named(item_path(line), listed)]
        if bless and unlisted:
            failed = True
            print(f"{crate}: not recorded, {len(unlisted)} breaking changes are not named in CHANGELOG.md:")
            for why, line in unlisted:
                print(f"  {why}: {line}")
            continue
        if bless:
            baseline.parent.mkdir(exist_ok=True)
            baseline.write_text("".join(line + "\n" for line in current))
            print(f"{baseline.relative_to(ROOT)}: {len(current)} lines written")
            continue
        changes = breaking_changes(old, current)
        added = len(set(current) - set(old))
        print(f"{crate}: {len(current)} lines, {added} new, {len(changes)} breaking"
              f" ({len(changes) - len(unlisted)} listed in CHANGELOG.md)")
        if unlisted:
            failed = True
            print(f"\nbreaking changes to {crate}'s public API that CHANGELOG.md's `## Unreleased`"
                  f" section does not list under `### Breaking`:")
            for why, line in unlisted:
                print(f"  {why}: {line}")
                print(f"    name it as `{item_path(line)}` (or its last two segments) in a ### Breaking entry")
    if failed:
        print("\nEither undo the change, or list it as breaking in CHANGELOG.md. At a release, once the"
              "\nUnreleased section becomes the version's, record the new API: scripts/api-check.py --bless")
        sys.exit(1)


if __name__ == "__main__":
    main()
