#!/usr/bin/env bash
# Run the test suite with the machine busy: two CPU-bound processes and one I/O-heavy one
# beside it, as on a loaded CI node or a developer's laptop during a build. A test that
# depends on the machine's speed fails here first.
#
#   scripts/test-under-load.sh               # `make test` once, under load
#   scripts/test-under-load.sh --runs 3      # three times in a row; stops at the first red
#   scripts/test-under-load.sh -- tests/gate # pytest only, on a part of the tree
#
# Each run's wall time and result are printed at the end. The load stops with the script
# (also on Ctrl-C); nothing it writes outlives it.
set -euo pipefail
cd "$(dirname "$0")/.."
unset PYTHONDONTWRITEBYTECODE  # as `make test` (Makefile): the suite writes bytecode

runs=1
pytest_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --) shift; pytest_args=("$@"); break ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "usage: $0 [--runs N] [-- PYTEST_ARGS...]" >&2; exit 2 ;;
    esac
done
case "$runs" in ''|*[!0-9]*|0) echo "--runs takes a positive whole number, not '$runs'" >&2; exit 2 ;; esac

scratch="$(mktemp -d "${TMPDIR:-/tmp}/scigate-load.XXXXXX")"
load_pids=()
stop_load() {
    for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$scratch"
}
trap stop_load EXIT
trap 'exit 130' INT TERM

# Two CPU burners (one per core of a 2-core machine) at normal priority.
for _ in 1 2; do
    python3 -c 'while True: pass' &
    load_pids+=($!)
done
# One I/O-heavy writer: 64 MiB written and fsynced, over and over, in its own file.
python3 - "$scratch/io" <<'EOF' &
import os, sys
block = os.urandom(1 << 20)
while True:
    with open(sys.argv[1], "wb") as f:
        for _ in range(64):
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
    os.remove(sys.argv[1])
EOF
load_pids+=($!)

results=()
status=0
for i in $(seq 1 "$runs"); do
    start=$(date +%s)
    if [ ${#pytest_args[@]} -gt 0 ]; then
        make --no-print-directory venv >/dev/null
        .venv/bin/pytest -n "${PYTEST_WORKERS:-4}" --dist loadgroup --durations=20 "${pytest_args[@]}" || status=$?
    else
        make --no-print-directory test || status=$?
    fi
    took=$(( $(date +%s) - start ))
    results+=("run $i: $([ "$status" -eq 0 ] && echo passed || echo "FAILED (exit $status)") in ${took} s")
    [ "$status" -eq 0 ] || break
done

echo
echo "under load (2 CPU burners, 1 fsync writer):"
printf '  %s\n' "${results[@]}"
exit "$status"
