"""Sums the LLVM IR of a crate by what its functions are for: analyze.sh's third table.

    python3 ir_buckets.py CRATE TOOLS FILE.ll
"""
import collections
import re
import subprocess
import sys

crate, tools, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]

# The first pattern a function's demangled name matches decides its bucket.
BUCKETS = [
    ("serde_path_to_error: naming the bad argument", r"serde_path_to_error|arguments::explain"),
    ("arguments that are null or a string", r"arguments::parse_other"),
    ("JsonSchema", r"schemars|json_schema|JsonSchema|schema_for|arguments_schema"),
    ("Deserialize from &Value", r"serde|Deserializ|__Visitor|__Field"),
    ("the tool functions", r"::forecast_\d+$"),
    ("OnceLock of each definition", r"OnceLock|Once>::call_once|definition::\{closure"),
    ("the rest: Tool impls, registering, dispatch", r""),
]

functions = []
name, lines = None, 0
with open(path) as ir:
    for line in ir:
        if line.startswith("define"):
            name, lines = re.search(r'@"?([^"(\s]+)"?\(', line).group(1), 0
        elif name is not None:
            lines += 1
            if line.startswith("}"):
                functions.append((name, lines))
                name = None

demangled = subprocess.run(
    ["c++filt"], input="\n".join(f for f, _ in functions), capture_output=True, text=True
).stdout.split("\n")
size, count = collections.Counter(), collections.Counter()
for (_, lines), name in zip(functions, demangled):
    name = re.sub(r"::h[0-9a-f]{16}$", "", name)
    bucket = next(b for b, pattern in BUCKETS if re.search(pattern, name))
    size[bucket] += lines
    count[bucket] += 1

total = sum(size.values())
print(f"{crate}: {total} IR lines in {len(functions)} functions, {total / tools:.0f} lines per tool")
for bucket, _ in BUCKETS:
    if count[bucket]:
        print(f"  {size[bucket] / tools:7.0f} lines {count[bucket] / tools:5.1f} functions per tool  {bucket}")
