#!/usr/bin/env bash
# Compares the size of our instructions' structure (the "Shape" section) with BAML's
# rendering of the same schema (`ctx.output_format`), for the types named on the command
# line (default: the three the prompt-size issue measured). Needs Python 3 and network
# access to PyPI for baml-py; nothing here runs in CI.
#
#   benches/peers/baml/compare.sh [TYPE ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv" >/dev/null
"$work/venv/bin/pip" install -q "baml-py==0.226.3" typing_extensions pydantic
mkdir -p "$work/project/baml_src"
cp "$here/peer.baml" "$here/generators.baml" "$work/project/baml_src/"
cp "$here/render.py" "$work/project/"
(cd "$work/project" && "$work/venv/bin/baml-cli" generate >/dev/null)
cargo build -q --release --bin payload --manifest-path "$root/Cargo.toml"
payload="$root/target/release/payload"
types=("$@")
[ ${#types[@]} -gt 0 ] || types=(schema_proposal selfhelp_response contacts_command)
printf '%-20s %8s %8s %6s\n' type baml ours ratio
for t in "${types[@]}"; do
  "$payload" schema "$t" > "$work/schema.json"
  baml=$(cd "$work/project" && "$work/venv/bin/python" render.py < "$work/schema.json" | wc -c)
  # Our structure: the Shape section, without the one-line examples under variants.
  ours=$("$payload" instructions "$t" | python3 -c '
import re, sys
text = sys.stdin.read()
shape = text.split("Shape (", 1)[1].split("\n", 1)[1]
shape = re.split(r"\n\n(?:Requirements:|Rules:|Avoid these|Example:)", shape)[0]
print(len("\n".join(l for l in shape.split("\n") if not l.strip().startswith("// e.g."))))')
  printf '%-20s %8d %8d %6.2f\n' "$t" "$baml" "$ours" "$(python3 -c "print($ours/$baml)")"
done
