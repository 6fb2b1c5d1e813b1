#!/usr/bin/env bash
# Runs the agent example against a real OpenAI-compatible server on this machine: llama-cpp-python's
# server with SmolLM2-135M-Instruct, the setup issue #17 was found with, as scripts/llama-server.sh
# installs and starts it. Not part of CI: the first run compiles llama.cpp (about 15 minutes on 2
# cores, needs a C++ compiler).
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
if [[ $# -eq 0 ]]; then
  set -- "What's the weather in Kampala?"
fi
exec scripts/llama-server.sh --dir "$dir" -- \
  cargo run --quiet --example agent -- --provider openai --model smollm2 "$@"
