#!/usr/bin/env bash
# Create .venv (if needed) and install puzzlegym into it.
#   scripts/setup.sh          the library (in-process backend)
#   scripts/setup.sh jax      + JAX (the jax extra: JAX training on the twins, the
#                             README's one RL command)
#   scripts/setup.sh rl       + Stable-Baselines3 and sb3-contrib with CPU torch (the
#                             README's RL snippet)
#   scripts/setup.sh dev      + test tools, the docs tools (MkDocs), Stable-Baselines3 and
#                             sb3-contrib (CPU torch), a SAT solver, JAX (the jax extra:
#                             jax, flax, optax, gymnax, rejax, mctx), Ray and RLlib (when
#                             ray[rllib] resolves with the rest), OS Chromium, and
#                             bubblewrap (the Code Execution sandbox)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
say() { echo "setup: $*"; }
if [ ! -x .venv/bin/python ]; then
  say "creating the virtual environment .venv ($PY -m venv)"
  "$PY" -m venv .venv
fi
PIP=".venv/bin/python -m pip"
if [ "${1:-}" = "dev" ]; then
  # Chromium comes from the OS packages (the browser tests and backend use /usr/bin/chromium).
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
      say "installing Chromium from the OS packages (apt-get install chromium)"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      echo "note: chromium is not installed; run: sudo apt-get install -y chromium" >&2
    fi
  fi
  # The Code Execution sandbox runs the model's code under bubblewrap (/usr/bin/bwrap).
  if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
      say "installing bubblewrap from the OS packages (apt-get install bubblewrap)"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
    else
      echo "note: bubblewrap is not installed (needed by --setting code); run: sudo apt-get install -y bubblewrap" >&2
    fi
  fi
  # The CPU build of torch for Stable-Baselines3, first (a plain 'torch' would pull a CUDA
  # build); then the extras the tests need: rl (SB3, sb3-contrib, rliable), distributed (Ray) and
  # torchrl (TorchRL, whose 0.14 takes the torch installed here, so torch is never changed).
  say "installing the CPU build of torch into .venv (pip; a few minutes the first time)"
  $PIP install -q 'torch==2.13.0' 2>/dev/null || $PIP install -q 'torch>=2.3,<2.14'
  # rllib (ray[rllib], which pins its own Gymnasium) joins them only if it resolves with them
  # and the torch installed here; otherwise the RLlib tests skip, saying so.
  TORCH=$(.venv/bin/python -c 'import torch; print(torch.__version__)')
  say "installing puzzlegym (editable) with its dev, rl, openai, sat, distributed, torchrl, rllib and jax extras into .venv (pip)"
  if ! $PIP install -q -e '.[dev,rl,openai,sat,distributed,torchrl,rllib,jax]' "torch==$TORCH"; then
    echo "note: the rllib extra does not resolve with the others here; installing without it" >&2
    $PIP install -q -e '.[dev,rl,openai,sat,distributed,torchrl,jax]'
  fi
elif [ "${1:-}" = "jax" ]; then
  # JAX training on the twins (puzzlegym train agent=jax_ppo; the README's one command)
  say "installing puzzlegym (editable) with its jax extra (jax, flax, optax, gymnax, rejax, mctx) into .venv (pip)"
  $PIP install -q -e '.[jax]'
elif [ "${1:-}" = "rl" ]; then
  # the CPU build of torch first (a plain 'torch' would pull a CUDA build), then the rl extra
  say "installing the CPU build of torch into .venv (pip; a few minutes the first time)"
  $PIP install -q 'torch==2.13.0' 2>/dev/null || $PIP install -q 'torch>=2.3,<2.14'
  TORCH=$(.venv/bin/python -c 'import torch; print(torch.__version__)')
  say "installing puzzlegym (editable) with its rl extra (Stable-Baselines3, sb3-contrib, rliable) into .venv (pip; about a minute)"
  $PIP install -q -e '.[rl]' "torch==$TORCH"
else
  say "installing puzzlegym (editable) and its dependencies (Gymnasium, NumPy, Pillow, Playwright, Hydra, Matplotlib, Uvicorn, ...) into .venv (pip; about a minute the first time)"
  $PIP install -q -e .
fi
say "done: .venv/bin/puzzlegym $(.venv/bin/python -c 'import puzzlegym; print(puzzlegym.__version__)' 2>/dev/null || echo '(not importable)')"
